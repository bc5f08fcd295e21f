// Package nccllog reads the lines NCCL prints with NCCL_DEBUG=INFO and says
// which path the traffic took: for every channel connection ("Channel 00/0
// : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA") the transport and what it
// means for the data — GPUDirect RDMA (NET/… with /GDRDMA: gdr), RDMA
// through host memory (NET/IB without it: rdma), TCP sockets (NET/Socket:
// tcp), a peer copy inside a node (P2P/…: gpu-peer) or host shared memory
// (SHM: host); the NICs of "NET/IB : Using" and "NET/Socket : Using"; the
// "GPU Direct RDMA Enabled/Disabled" lines with the distance NCCL compared
// (named PIX, PXB, PHB, SYS for the NCCL version of the log); the ring's
// "use ring PXN %d GDR %d"; and PXN (traffic through another GPU's NIC).
//
// The lines may stand alone (a log file) or be interleaved with another
// program's output (nccl-tests); other lines are ignored. The package
// builds the sentences of its verdict from the log alone; comparing the
// path with a model is the report's job.
package nccllog
