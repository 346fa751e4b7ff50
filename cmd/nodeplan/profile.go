package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/pflag"
)

// profileFlags write pprof profiles of one run, so that a user whose run is slow or large
// can send what it spent its time and memory on (go tool pprof reads both files).
type profileFlags struct {
	cpuProfile, memProfile string
}

func (p *profileFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&p.cpuProfile, "cpuprofile", "", "write a CPU profile of the run (reading, planning, printing) to `FILE`, for go tool pprof")
	fs.StringVar(&p.memProfile, "memprofile", "", "write a memory profile to `FILE` when the run ends (in use and allocated; go tool pprof -sample_index=alloc_space)")
}

// profiled runs fn with the profiles the flags ask for: the CPU profile covers all of fn,
// the memory profile is written after it. A file that cannot be created is an error before
// fn runs; one that cannot be written is reported after fn's own error, which wins.
func (p *profileFlags) profiled(fn func() error) (err error) {
	var cpu, mem *os.File
	if p.memProfile != "" {
		if mem, err = os.Create(p.memProfile); err != nil {
			return fmt.Errorf("--memprofile: %w", err)
		}
		defer func() {
			if werr := p.writeMemProfile(mem); werr != nil {
				err = errors.Join(err, werr)
			}
		}()
	}
	if p.cpuProfile != "" {
		if cpu, err = os.Create(p.cpuProfile); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer func() {
			pprof.StopCPUProfile()
			if cerr := cpu.Close(); cerr != nil {
				err = errors.Join(err, fmt.Errorf("--cpuprofile: %w", cerr))
			}
		}()
	}
	return fn()
}

// writeMemProfile writes the heap profile (what is in use after a collection, and every
// allocation the run made) to f and closes it.
func (p *profileFlags) writeMemProfile(f *os.File) error {
	runtime.GC() // in-use figures as of the end of the run, not of the last collection
	err := pprof.Lookup("heap").WriteTo(f, 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("--memprofile: %w", err)
	}
	return nil
}
