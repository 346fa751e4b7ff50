package main

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/pflag"

	"github.com/nodeplan/nodeplan/aws/catalog"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/internal/bounded"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/requirements"
)

// limitFlags cap what one run reads in total (see manifest.Limits): the bytes of every
// input together (manifests, standard input, --instance-types, --prices), the Pod objects,
// and the objects of each other kind.
type limitFlags struct {
	maxInputBytes int64
	maxPods       int
	maxObjects    int
	// read is how much of maxInputBytes the inputs read so far took.
	read int64
}

func (l *limitFlags) register(fs *pflag.FlagSet) {
	fs.Int64Var(&l.maxInputBytes, "max-input-bytes", manifest.DefaultMaxInputBytes, "the most bytes read from all inputs together (manifests, stdin, --instance-types, --prices)")
	fs.IntVar(&l.maxPods, "max-pods", manifest.MaxExpandedPods, "the most Pod objects read, and separately the most pods workloads expand into")
	fs.IntVar(&l.maxObjects, "max-objects", manifest.DefaultMaxObjects, "the most objects read of each other kind (Nodes, NodeClaims, interruption messages, ...), kind by kind")
}

func (l *limitFlags) check() error {
	for _, f := range []struct {
		name  string
		value int64
	}{{"--max-input-bytes", l.maxInputBytes}, {"--max-pods", int64(l.maxPods)}, {"--max-objects", int64(l.maxObjects)}} {
		if f.value <= 0 {
			return fmt.Errorf("%s %d: want a positive number", f.name, f.value)
		}
	}
	return nil
}

// limits are the flags as manifest.Limits (the manifests are read first, before
// --instance-types and --prices take their share of --max-input-bytes).
func (l *limitFlags) limits() manifest.Limits {
	return manifest.Limits{MaxInputBytes: l.maxInputBytes, MaxPods: l.maxPods, MaxObjects: l.maxObjects}
}

// limitFlag is the flag that raises each of manifest.Limits.
var limitFlag = map[string]string{
	manifest.LimitInputBytes: "--max-input-bytes",
	manifest.LimitPods:       "--max-pods",
	manifest.LimitObjects:    "--max-objects",
}

// loadManifests is manifest.LoadLimited, naming the flag that raises a limit that was hit.
func (l *limitFlags) loadManifests(paths []string) (*manifest.Set, error) {
	set, err := manifest.LoadLimited(l.limits(), paths...)
	var le *manifest.LimitError
	if errors.As(err, &le) {
		return nil, fmt.Errorf("%w\n(raise it with %s)", err, limitFlag[le.Limit])
	}
	if err != nil {
		return nil, err
	}
	l.read += set.InputBytes
	return set, nil
}

// readFile reads the file of a flag (--instance-types, --prices) within what is left of
// --max-input-bytes.
func (l *limitFlags) readFile(flag, path string) ([]byte, error) {
	data, err := bounded.ReadFile(path, l.maxInputBytes-l.read, manifest.DefaultFIFOWait)
	var tl *bounded.TooLargeError
	if errors.As(err, &tl) {
		return nil, fmt.Errorf("%s %s: %w\n(raise it with --max-input-bytes)", flag, path,
			&manifest.LimitError{Limit: manifest.LimitInputBytes, Max: l.maxInputBytes})
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, path, unwrapPath(err))
	}
	l.read += int64(len(data))
	return data, nil
}

// parseCatalogFile reads the --instance-types file within --max-input-bytes.
func (l *limitFlags) parseCatalogFile(path string) (cloudprovider.InstanceTypes, requirements.KeySet, error) {
	data, err := l.readFile("--instance-types", path)
	if err != nil {
		return nil, nil, err
	}
	return catalog.Parse(data, path)
}

// parsePricesFile reads the --prices file within --max-input-bytes.
func (l *limitFlags) parsePricesFile(path string) (catalog.SpotPrices, error) {
	data, err := l.readFile("--prices", path)
	if err != nil {
		return nil, err
	}
	return catalog.ParseSpotPrices(data, path)
}

// unwrapPath drops the operation and path of an *fs.PathError, which the message names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
