package main
import ("os";"github.com/gpupath/gpupath/internal/fstree")
func main(){ if err:=fstree.UnpackFile(os.Args[1],os.Args[2]);err!=nil{panic(err)} }
