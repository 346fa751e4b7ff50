package main

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/pflag"

	"github.com/nodeplan/nodeplan/catalog"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/internal/bounded"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/requirements"
)

// limitFlags cap what one run reads (see manifest.Limits).
type limitFlags struct {
	maxInputBytes int64
	maxPods       int
}

func (l *limitFlags) register(fs *pflag.FlagSet) {
	fs.Int64Var(&l.maxInputBytes, "max-input-bytes", manifest.DefaultMaxFileBytes, "the most bytes read from one file or from stdin")
	fs.IntVar(&l.maxPods, "max-pods", manifest.MaxExpandedPods, "the most Pod objects read, and separately the most pods workloads expand into")
}

func (l *limitFlags) check() error {
	if l.maxInputBytes <= 0 {
		return fmt.Errorf("--max-input-bytes %d: want a positive number", l.maxInputBytes)
	}
	if l.maxPods <= 0 {
		return fmt.Errorf("--max-pods %d: want a positive number", l.maxPods)
	}
	return nil
}

func (l *limitFlags) limits() manifest.Limits {
	return manifest.Limits{MaxFileBytes: l.maxInputBytes, MaxPods: l.maxPods}
}

// loadManifests is manifest.LoadLimited, naming the flag that raises a limit that was hit.
func (l *limitFlags) loadManifests(paths []string) (*manifest.Set, error) {
	set, err := manifest.LoadLimited(l.limits(), paths...)
	if errors.Is(err, manifest.ErrTooLarge) {
		return nil, fmt.Errorf("%w\n(raise the limits with --max-input-bytes and --max-pods)", err)
	}
	return set, err
}

// parseCatalogFile reads the --instance-types file within --max-input-bytes.
func (l *limitFlags) parseCatalogFile(path string) (cloudprovider.InstanceTypes, requirements.KeySet, error) {
	data, err := bounded.ReadFile(path, l.maxInputBytes, manifest.DefaultFIFOWait)
	var tl *bounded.TooLargeError
	if errors.As(err, &tl) {
		return nil, nil, fmt.Errorf("--instance-types %s: %w (raise it with --max-input-bytes)", path, err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("--instance-types %s: %w", path, unwrapPath(err))
	}
	return catalog.Parse(data, path)
}

// parsePricesFile reads the --prices file within --max-input-bytes.
func (l *limitFlags) parsePricesFile(path string) (catalog.SpotPrices, error) {
	data, err := bounded.ReadFile(path, l.maxInputBytes, manifest.DefaultFIFOWait)
	var tl *bounded.TooLargeError
	if errors.As(err, &tl) {
		return nil, fmt.Errorf("--prices %s: %w (raise it with --max-input-bytes)", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
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
