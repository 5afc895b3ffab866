// Writes a CPU profile (cpu.pprof) and a heap profile (heap.pprof) with Go's runtime/pprof:
// real profiles of the Go ecosystem, with inlined frames and a goroutine labelled "thread".
package main

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

var sink []byte

func leafWork(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i % 7
	}
	return s
}

func spin(d time.Duration) int {
	total := 0
	for end := time.Now().Add(d); time.Now().Before(end); {
		total += leafWork(20000)
	}
	return total
}

func allocate(n int) {
	for i := 0; i < n; i++ {
		sink = make([]byte, 4096)
	}
}

func main() {
	runtime.MemProfileRate = 512
	cpu, err := os.Create("cpu.pprof")
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		panic(err)
	}
	done := make(chan int)
	pprof.Do(context.Background(), pprof.Labels("thread", "worker"), func(context.Context) {
		go func() { done <- spin(300 * time.Millisecond) }()
	})
	spin(300 * time.Millisecond)
	<-done
	allocate(2000)
	pprof.StopCPUProfile()
	cpu.Close()
	heap, err := os.Create("heap.pprof")
	if err != nil {
		panic(err)
	}
	runtime.GC()
	pprof.WriteHeapProfile(heap)
	heap.Close()
}
