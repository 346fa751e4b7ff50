package cluster_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
)

// invalidAs is err's *InvalidInputError without its message: Op, Code, Kind, Name and Field.
func invalidAs(t *testing.T, err error) cluster.InvalidInputError {
	t.Helper()
	var invalid *cluster.InvalidInputError
	require.ErrorAs(t, err, &invalid, "err: %v", err)
	var internal *cluster.InternalError
	require.False(t, errors.As(err, &internal), "an invalid input is no internal error")
	got := *invalid
	got.Err = nil
	return got
}

// TestNewRefusesBadInput: what cluster.New refuses, each an *InvalidInputError naming the
// object and the field, so a host tells an invalid NodePool from an internal error.
func TestNewRefusesBadInput(t *testing.T) {
	types := func() map[string]cloudprovider.InstanceTypes {
		return map[string]cloudprovider.InstanceTypes{"default": fake.InstanceTypes(2)}
	}
	pool := func() []*v1.NodePool { return []*v1.NodePool{fake.NodePool("default").Obj()} }
	negative := fake.InstanceTypes(2)
	negative[1].Offerings = cloudprovider.Offerings{cloudprovider.NewOffering(fake.TestZone1, v1.CapacityTypeOnDemand, -0.5, true)}
	for name, tc := range map[string]struct {
		objs cluster.Objects
		want cluster.InvalidInputError
	}{
		"two NodePools of one name": {
			cluster.Objects{NodePools: append(pool(), fake.NodePool("default").Obj())},
			cluster.InvalidInputError{Op: "cluster.New", Code: cluster.InputDuplicate, Kind: "NodePool", Name: "default"},
		},
		"two pods of one namespace/name": {
			cluster.Objects{NodePools: pool(), Pods: []*corev1.Pod{fake.Pod("web").Obj(), fake.Pod("db").Obj(), fake.Pod("web").Obj()}},
			cluster.InvalidInputError{Op: "cluster.New", Code: cluster.InputDuplicate, Kind: "Pod", Name: "default/web"},
		},
		"a pending and a bound pod of one name": {
			cluster.Objects{Nodes: []*corev1.Node{node("n", "")}, Pods: []*corev1.Pod{fake.Pod("web").Obj(), fake.Pod("web").NodeName("n").Obj()}},
			cluster.InvalidInputError{Op: "cluster.New", Code: cluster.InputDuplicate, Kind: "Pod", Name: "default/web"},
		},
		"a negative price": {
			cluster.Objects{NodePools: pool(), InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": negative}},
			cluster.InvalidInputError{Op: "cluster.New", Code: cluster.InputInvalid, Kind: "InstanceType", Name: negative[1].Name, Field: "offerings[0].price"},
		},
		"two Nodes of one name": {
			cluster.Objects{Nodes: []*corev1.Node{node("n", ""), node("n", "")}},
			cluster.InvalidInputError{Op: "cluster.New", Code: cluster.InputDuplicate, Kind: "Node", Name: "n"},
		},
		"two NodeClaims of one name": {
			cluster.Objects{NodeClaims: []*v1.NodeClaim{claim("c", "", ""), claim("c", "", "")}},
			cluster.InvalidInputError{Op: "cluster.New", Code: cluster.InputDuplicate, Kind: "NodeClaim", Name: "c"},
		},
		"a nil NodePool": {
			cluster.Objects{NodePools: []*v1.NodePool{nil}, InstanceTypes: types()},
			cluster.InvalidInputError{Op: "cluster.New", Code: cluster.InputNil, Kind: "NodePool", Field: "Objects.NodePools[0]"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			snap, err := cluster.New(tc.objs)
			assert.Nil(t, snap)
			assert.Equal(t, tc.want, invalidAs(t, err))
		})
	}
}

// TestForksRefuseBadInput: the forks that take objects refuse what New refuses.
func TestForksRefuseBadInput(t *testing.T) {
	snap, err := cluster.New(cluster.Objects{NodePools: []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": fake.InstanceTypes(2)},
		Pods:          []*corev1.Pod{fake.Pod("web").Obj()}})
	require.NoError(t, err)
	_, err = snap.WithPods(fake.Pod("web").Obj())
	assert.Equal(t, cluster.InvalidInputError{Op: "cluster.WithPods", Code: cluster.InputDuplicate, Kind: "Pod", Name: "default/web"}, invalidAs(t, err))
	_, err = snap.WithPods(fake.Pod("new").Obj(), nil)
	assert.Equal(t, cluster.InvalidInputError{Op: "cluster.WithPods", Code: cluster.InputNil, Kind: "Pod", Field: "pods[1]"}, invalidAs(t, err))
	negative := fake.InstanceTypes(1)
	negative[0].Offerings[0].Price = -1
	_, err = snap.WithInstanceTypes(map[string]cloudprovider.InstanceTypes{"default": negative})
	assert.Equal(t, cluster.InvalidInputError{Op: "cluster.WithInstanceTypes", Code: cluster.InputInvalid, Kind: "InstanceType", Name: negative[0].Name, Field: "offerings[0].price"}, invalidAs(t, err))
}

// TestApplyHelpersRefuseANilSnapshot: every apply helper returns an *InvalidInputError for a
// nil snapshot, never a panic.
func TestApplyHelpersRefuseANilSnapshot(t *testing.T) {
	var nilSnap *cluster.Snapshot
	for name, call := range map[string]func() error{
		"scheduling.Apply": func() error { _, err := scheduling.Apply(nilSnap, &scheduling.Result{}, nil); return err },
		"disruption.Apply": func() error { _, err := disruption.Apply(nilSnap, disruption.Command{}, nil); return err },
		"cluster.Carry":    func() error { _, err := nilSnap.Carry(nil, nil, nil); return err },
		"cluster.WithNodesFor": func() error {
			_, err := nilSnap.WithNodesFor(nil, time.Unix(0, 0), true)
			return err
		},
		"cluster.NodeClaimsOf": func() error { _, err := nilSnap.NodeClaimsOf("a"); return err },
	} {
		t.Run(name, func(t *testing.T) {
			var err error
			require.NotPanics(t, func() { err = call() })
			assert.Equal(t, cluster.InvalidInputError{Op: name, Code: cluster.InputNil, Kind: "Snapshot"}, invalidAs(t, err))
		})
	}
	assert.NotPanics(t, func() {
		claims := scheduling.NodeClaimsFor(nilSnap, []*scheduling.NodeClaim{{NodePool: "default"}}, func(string) string { return "c" })
		assert.Nil(t, claims[0].Spec.NodeClassRef, "a nil snapshot knows no NodePool")
	})
}

// TestInternalNamesWhereItPanicked: Internal, called by the function that recovered a panic,
// is an *InternalError naming the function that panicked, with its stack, and no invalid
// input.
func TestInternalNamesWhereItPanicked(t *testing.T) {
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = cluster.Internal("test.Op", r)
			}
		}()
		var m map[string]int
		//lint:ignore SA5000 the runtime panic is what the test recovers
		m["x"]++
		return nil
	}()
	var internal *cluster.InternalError
	require.ErrorAs(t, err, &internal)
	var invalid *cluster.InvalidInputError
	assert.False(t, errors.As(err, &invalid))
	assert.Equal(t, "test.Op", internal.Op)
	assert.Contains(t, internal.Where, "TestInternalNamesWhereItPanicked", "the panicking function")
	assert.Contains(t, internal.Where, "cluster/errors_test.go:")
	assert.NotEmpty(t, internal.Stack)
	assert.Contains(t, err.Error(), "internal error")
}
