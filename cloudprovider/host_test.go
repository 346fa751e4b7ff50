package cloudprovider_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/fake"
)

// scripted is a CloudProvider whose GetInstanceTypes and Create answer from tables by
// NodePool and NodeClaim name, and log the calls; the other methods are not used.
type scripted struct {
	cloudprovider.CloudProvider
	typesErr  map[string]error // by NodePool
	createErr map[string]error // by NodeClaim
	createNil map[string]bool  // Create returns nil, nil
	deleteErr map[string]error // by NodeClaim
	calls     []string
}

func (s *scripted) Delete(_ context.Context, nc *v1.NodeClaim) error {
	s.calls = append(s.calls, "delete "+nc.Name)
	return s.deleteErr[nc.Name]
}

func (s *scripted) GetInstanceTypes(_ context.Context, np *v1.NodePool) ([]*cloudprovider.InstanceType, error) {
	s.calls = append(s.calls, np.Name)
	if err := s.typesErr[np.Name]; err != nil {
		return nil, err
	}
	return cloudprovider.InstanceTypes{{Name: np.Name + "-type"}}, nil
}

func (s *scripted) Create(_ context.Context, nc *v1.NodeClaim) (*v1.NodeClaim, error) {
	s.calls = append(s.calls, nc.Name)
	if err := s.createErr[nc.Name]; err != nil {
		return nil, err
	}
	if s.createNil[nc.Name] {
		return nil, nil
	}
	out := nc.DeepCopy()
	out.Status.ProviderID = "scripted:///" + nc.Name
	return out, nil
}

func pools(names ...string) []*v1.NodePool {
	var out []*v1.NodePool
	for _, n := range names {
		out = append(out, &v1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: n}})
	}
	return out
}

// claims are NodeClaims of NodePool default with these names.
func claims(names ...string) []*v1.NodeClaim {
	var out []*v1.NodeClaim
	for _, n := range names {
		out = append(out, &v1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: n, Labels: map[string]string{v1.NodePoolLabelKey: "default"}}})
	}
	return out
}

// oneMachineCloud is a fake cloud of two types with room for one machine (fake-it-0 in its
// first offering).
func oneMachineCloud() *fake.CloudProvider {
	types := fake.InstanceTypes(2)
	cloud := fake.NewCloudProvider(types)
	cloud.OfferingCapacity = map[string]int{}
	for _, it := range types {
		for _, o := range it.Offerings {
			cloud.OfferingCapacity[fake.OfferingKey(it, o)] = 0
		}
	}
	cloud.OfferingCapacity[fake.OfferingKey(types[0], types[0].Offerings[0])] = 1
	return cloud
}

func TestInstanceTypesFor(t *testing.T) {
	denied := errors.New("access denied")
	for _, tc := range []struct {
		name     string
		pools    []*v1.NodePool
		typesErr map[string]error
		want     map[string]string // NodePool -> its one type's name
		calls    []string
		errPool  string // the NodePool the error names ("" for none)
	}{
		{name: "none", want: map[string]string{}},
		{name: "each pool asked once, in order", pools: pools("b", "a"), want: map[string]string{"a": "a-type", "b": "b-type"}, calls: []string{"b", "a"}},
		{name: "a nil NodePool is skipped", pools: append(pools("a"), nil), want: map[string]string{"a": "a-type"}, calls: []string{"a"}},
		{name: "the first failure stops and names its NodePool", pools: pools("a", "b", "c"), typesErr: map[string]error{"b": denied},
			calls: []string{"a", "b"}, errPool: "b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cp := &scripted{typesErr: tc.typesErr}
			got, err := cloudprovider.InstanceTypesFor(context.Background(), cp, tc.pools)
			assert.Equal(t, tc.calls, cp.calls)
			if tc.errPool != "" {
				require.Error(t, err)
				assert.ErrorIs(t, err, denied)
				assert.Contains(t, err.Error(), fmt.Sprintf("NodePool %q", tc.errPool))
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			names := map[string]string{}
			for pool, its := range got {
				require.Len(t, its, 1, pool)
				names[pool] = its[0].Name
			}
			assert.Equal(t, tc.want, names)
		})
	}
}

func TestLaunch(t *testing.T) {
	quota := errors.New("quota exceeded")
	ice := cloudprovider.NewInsufficientCapacityError(errors.New("no c5 in zone-a"))
	for _, tc := range []struct {
		name      string
		claims    []*v1.NodeClaim
		createErr map[string]error
		createNil map[string]bool
		launched  []string // the launched claims' names, aligned ("" for nil)
		calls     []string
		err       error  // errors.Is target (nil: no error)
		errClaim  string // the NodeClaim the error names
	}{
		{name: "none", launched: []string{}},
		{name: "every claim, in order", claims: claims("a", "b", "c"), launched: []string{"a", "b", "c"}, calls: []string{"a", "b", "c"}},
		{name: "a capacity refusal leaves a hole, the rest launch", claims: claims("a", "b", "c"), createErr: map[string]error{"b": ice},
			launched: []string{"a", "", "c"}, calls: []string{"a", "b", "c"}},
		{name: "a wrapped capacity refusal too", claims: claims("a", "b"), createErr: map[string]error{"a": fmt.Errorf("fleet: %w", ice)},
			launched: []string{"", "b"}, calls: []string{"a", "b"}},
		{name: "every claim refused", claims: claims("a", "b"), createErr: map[string]error{"a": ice, "b": ice},
			launched: []string{"", ""}, calls: []string{"a", "b"}},
		{name: "another error stops, keeping what launched before", claims: claims("a", "b", "c"), createErr: map[string]error{"b": quota},
			launched: []string{"a", "", ""}, calls: []string{"a", "b"}, err: quota, errClaim: "b"},
		{name: "a NodeClassNotReady error is no refusal", claims: claims("a"), createErr: map[string]error{"a": cloudprovider.NewNodeClassNotReadyError(nil)},
			launched: []string{""}, calls: []string{"a"}, err: &cloudprovider.NodeClassNotReadyError{}, errClaim: "a"},
		{name: "no claim and no error from the provider", claims: claims("a", "b"), createNil: map[string]bool{"a": true},
			launched: []string{"", ""}, calls: []string{"a"}, errClaim: "a"},
		{name: "a nil claim", claims: []*v1.NodeClaim{claims("a")[0], nil, claims("c")[0]}, launched: []string{"a", "", ""}, calls: []string{"a"}, errClaim: "claim 1 of 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cp := &scripted{createErr: tc.createErr, createNil: tc.createNil}
			got, err := cloudprovider.Launch(context.Background(), cp, tc.claims)
			assert.Equal(t, tc.calls, cp.calls)
			names := []string{}
			for _, nc := range got {
				if nc == nil {
					names = append(names, "")
					continue
				}
				names = append(names, nc.Name)
				assert.Equal(t, "scripted:///"+nc.Name, nc.Status.ProviderID, "the provider's answer, not the claim asked for")
			}
			assert.Equal(t, tc.launched, names)
			if tc.errClaim == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			if tc.err != nil {
				assert.ErrorIs(t, err, tc.err)
			}
			assert.Contains(t, err.Error(), tc.errClaim)
		})
	}
}

func TestLaunchAll(t *testing.T) {
	quota := errors.New("quota exceeded")
	denied := errors.New("UnauthorizedOperation")
	ice := cloudprovider.NewInsufficientCapacityError(errors.New("no c5 in zone-a"))
	for _, tc := range []struct {
		name      string
		claims    []*v1.NodeClaim
		createErr map[string]error
		deleteErr map[string]error
		launched  []string // nil: none returned
		calls     []string
		errs      []error // errors.Is targets
		errClaim  string
	}{
		{name: "every claim", claims: claims("a", "b"), launched: []string{"a", "b"}, calls: []string{"a", "b"}},
		{name: "a refusal terminates the ones before and tries no more", claims: claims("a", "b", "c"), createErr: map[string]error{"b": ice},
			calls: []string{"a", "b", "delete a"}, errs: []error{ice}, errClaim: `"b"`},
		{name: "a refusal of the first deletes nothing", claims: claims("a", "b"), createErr: map[string]error{"a": ice},
			calls: []string{"a"}, errs: []error{ice}, errClaim: `"a"`},
		{name: "a failed termination is reported with the refusal", claims: claims("a", "b"), createErr: map[string]error{"b": ice}, deleteErr: map[string]error{"a": denied},
			launched: []string{"a", ""}, calls: []string{"a", "b", "delete a"}, errs: []error{ice, denied}, errClaim: `"a"`},
		{name: "another error is Launch's: what launched is kept", claims: claims("a", "b", "c"), createErr: map[string]error{"b": quota},
			launched: []string{"a", "", ""}, calls: []string{"a", "b"}, errs: []error{quota}, errClaim: `"b"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cp := &scripted{createErr: tc.createErr, deleteErr: tc.deleteErr}
			got, err := cloudprovider.LaunchAll(context.Background(), cp, tc.claims)
			assert.Equal(t, tc.calls, cp.calls)
			var names []string
			for _, nc := range got {
				name := ""
				if nc != nil {
					name = nc.Name
				}
				names = append(names, name)
			}
			assert.Equal(t, tc.launched, names)
			if len(tc.errs) == 0 {
				require.NoError(t, err)
				return
			}
			for _, target := range tc.errs {
				assert.ErrorIs(t, err, target)
			}
			assert.Contains(t, err.Error(), tc.errClaim)
		})
	}
}

func TestTerminate(t *testing.T) {
	denied := errors.New("UnauthorizedOperation")
	gone := cloudprovider.NewNodeClaimNotFoundError(errors.New("instance i-1 terminated"))
	for _, tc := range []struct {
		name      string
		claims    []*v1.NodeClaim
		deleteErr map[string]error
		calls     []string
		err       error
		errClaim  string
	}{
		{name: "none"},
		{name: "every claim, in order", claims: claims("b", "a"), calls: []string{"delete b", "delete a"}},
		{name: "nil claims (refused launches) are skipped", claims: []*v1.NodeClaim{nil, claims("a")[0], nil}, calls: []string{"delete a"}},
		{name: "a machine already gone counts as done", claims: claims("a", "b"), deleteErr: map[string]error{"a": fmt.Errorf("ec2: %w", gone)},
			calls: []string{"delete a", "delete b"}},
		{name: "another error stops and names the claim", claims: claims("a", "b", "c"), deleteErr: map[string]error{"b": denied},
			calls: []string{"delete a", "delete b"}, err: denied, errClaim: `"b"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cp := &scripted{deleteErr: tc.deleteErr}
			err := cloudprovider.Terminate(context.Background(), cp, tc.claims)
			assert.Equal(t, tc.calls, cp.calls)
			if tc.err == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.err)
			assert.Contains(t, err.Error(), tc.errClaim)
		})
	}
}

// InstanceTypesFor is the instance types a snapshot takes, as the cloud offers them now.
func ExampleInstanceTypesFor() {
	cloud := fake.NewCloudProvider(fake.InstanceTypes(4))
	cloud.InstanceTypesForNodePool = map[string]cloudprovider.InstanceTypes{"small": fake.InstanceTypes(2)}
	types, err := cloudprovider.InstanceTypesFor(context.Background(), cloud, []*v1.NodePool{
		fake.NodePool("default").Obj(), fake.NodePool("small").Obj(),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(types["default"]), len(types["small"]))
	// Output: 4 2
}

// Launch creates the claims in order; the one the cloud has no capacity for is nil, and its
// pods stay pending when the result is applied.
func ExampleLaunch() {
	cloud := oneMachineCloud()
	launched, err := cloudprovider.Launch(context.Background(), cloud, claims("default-1", "default-2"))
	if err != nil {
		panic(err)
	}
	for _, nc := range launched {
		if nc == nil {
			fmt.Println("refused: insufficient capacity")
			continue
		}
		fmt.Println(nc.Name, nc.Labels[v1.LabelInstanceType])
	}
	// Output:
	// default-1 fake-it-0
	// refused: insufficient capacity
}

// Terminate deletes the machines of the claims it is given; a refused launch's nil is
// skipped, so Launch's answer can be passed as it is.
func ExampleTerminate() {
	ctx := context.Background()
	cloud := fake.NewCloudProvider(fake.InstanceTypes(2))
	claim := &v1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "default-1", Labels: map[string]string{v1.NodePoolLabelKey: "default"}}}
	launched, err := cloudprovider.Launch(ctx, cloud, []*v1.NodeClaim{claim})
	if err != nil {
		panic(err)
	}
	running, _ := cloud.List(ctx)
	fmt.Println("running:", len(running))
	if err := cloudprovider.Terminate(ctx, cloud, append(launched, nil)); err != nil {
		panic(err)
	}
	running, _ = cloud.List(ctx)
	fmt.Println("running:", len(running))
	// Output:
	// running: 1
	// running: 0
}

// LaunchAll launches a command's replacements all or none: the cloud has room for one of
// the two, so the one it launched is terminated again and the host abandons the command.
func ExampleLaunchAll() {
	ctx := context.Background()
	cloud := oneMachineCloud()
	launched, err := cloudprovider.LaunchAll(ctx, cloud, claims("default-1", "default-2"))
	running, _ := cloud.List(ctx)
	fmt.Println(len(launched), cloudprovider.IsInsufficientCapacityError(err), len(running))
	// Output: 0 true 0
}
