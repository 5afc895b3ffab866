// SPDX-License-Identifier: MIT
// Writes labels-cpu.pb.gz (a CPU profile whose samples carry pprof.Do labels: handler=login
// user=alice, handler=search, none) and labels-heap.pb.gz (an allocs profile: every sample has
// the numeric label bytes) with runtime/pprof. Made with go 1.19.8:
//   go mod init labelsfixture && go build -o fixture . && ./fixture labels-cpu.pb.gz labels-heap.pb.gz
package main

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

var sink []byte

func spin(d time.Duration) int {
	n := 0
	for end := time.Now().Add(d); time.Now().Before(end); {
		n++
	}
	return n
}

func work(ctx context.Context, d time.Duration) {
	spin(d)
	sink = make([]byte, 1<<16)
}

func main() {
	runtime.MemProfileRate = 4096
	cpu, _ := os.Create(os.Args[1])
	pprof.StartCPUProfile(cpu)
	for i := 0; i < 3; i++ {
		pprof.Do(context.Background(), pprof.Labels("handler", "login", "user", "alice"), func(ctx context.Context) { work(ctx, 60*time.Millisecond) })
		pprof.Do(context.Background(), pprof.Labels("handler", "search"), func(ctx context.Context) { work(ctx, 90*time.Millisecond) })
		work(context.Background(), 30*time.Millisecond)
	}
	pprof.StopCPUProfile()
	cpu.Close()
	heap, _ := os.Create(os.Args[2])
	pprof.Lookup("allocs").WriteTo(heap, 0)
	heap.Close()
}
