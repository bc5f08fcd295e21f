#include "textflag.h"

// func flushLines(b []byte)
TEXT ·flushLines(SB), NOSPLIT, $0-24
	MOVQ b_base+0(FP), AX
	MOVQ b_len+8(FP), CX
	ADDQ AX, CX     // CX: the end
	ANDQ $~63, AX   // from the line that holds the first byte
loop:
	CMPQ AX, CX
	JAE  done
	CLFLUSH (AX)
	ADDQ $64, AX
	JMP  loop
done:
	MFENCE
	RET
