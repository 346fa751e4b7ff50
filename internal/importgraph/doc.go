// Package importgraph holds no code: its test checks that the package graph DESIGN.md draws
// is the graph the Go tool sees, edge for edge, so that the design document stays true.
package importgraph
