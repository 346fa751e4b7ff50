package verify_test

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// Property tests: verify.Solve finds nothing wrong with what scheduling.Solve decides.
// Run more cases with -rapid.checks=N (the default 100 keeps CI fast); reproduce a failure
// with the -rapid.seed or fail file rapid prints.

// propSettings mix every constraint the verifier checks into the drawn pods.
var propSettings = fake.PodSettings{
	ZoneSelector: 0.3, ArchSelector: 0.2, Toleration: 0.4, CapacityTypeRequirement: 0.2,
	ZoneSpread: 0.3, HostnameSpread: 0.2, MinDomains: 0.15, HonorTaints: 0.2, IgnoreAffinity: 0.15,
	ZoneAffinity: 0.08, HostnameAntiAffinity: 0.2, ZoneAntiAffinity: 0.02, HostPort: 0.2,
	MaxCPUMillis: 2000, MaxMemoryMi: 4096,
}

// drawSolveWorld draws 1-3 NodePools (most without limits, sometimes an unconstrained one
// besides) sharing 1-6 drawn instance types and five plain ones, 0-3 existing nodes (some
// of a NodePool, with its taints, some marked for deletion, some not initialized or only
// an in-flight NodeClaim, and up to 3 bound pods), 0-2 DaemonSets, up to 40 pending pods
// (some with init containers, sidecars, overhead or limits only, some with a volume bound
// in a zone) and options
// (preferences ignored, BestEffort minValues, a cluster default zone spread).
func drawSolveWorld(t *rapid.T) (*world, scheduling.Options) {
	// Drawn types, plus five plain ones in every zone so that most pods can go somewhere.
	types := append(fake.InstanceTypesGenerator(6).Draw(t, "instance-types"), fake.InstanceTypes(5)...)
	pools := fake.NodePoolsGenerator(3, fake.HostileNodePoolSettings()).Draw(t, "nodepools")
	for _, np := range pools {
		if len(np.Spec.Limits) > 0 && rapid.IntRange(0, 3).Draw(t, np.Name+"/keep-limit") > 0 {
			np.Spec.Limits = nil
		}
	}
	if rapid.Bool().Draw(t, "open-nodepool") {
		pools = append(pools, fake.NodePool("open").Obj()) // takes what the drawn ones refuse
	}
	w := &world{Objects: cluster.Objects{InstanceTypes: map[string]cloudprovider.InstanceTypes{}, WellKnownLabels: fake.WellKnownLabels(), NodePools: pools}}
	var opts scheduling.Options
	names := []string{""}
	for _, np := range pools {
		w.InstanceTypes[np.Name] = types
		names = append(names, np.Name)
	}
	for i := rapid.IntRange(0, 3).Draw(t, "nodes"); i > 0; i-- {
		name := fmt.Sprintf("node-%d", i)
		pool := rapid.SampledFrom(names).Draw(t, name+"/nodepool")
		n := fake.NodeGenerator(name, pool, types).Draw(t, name)
		for _, np := range pools {
			if np.Name == pool {
				n.Spec.Taints = append(n.Spec.Taints, np.Spec.Template.Spec.Taints...)
			}
		}
		if rapid.IntRange(0, 5).Draw(t, name+"/marked") == 5 {
			w.deleting = append(w.deleting, name)
		}
		inFlight := false
		if pool != "" && rapid.IntRange(0, 4).Draw(t, name+"/uninitialized") == 4 {
			// Not initialized yet: its startup and ephemeral taints do not count.
			delete(n.Labels, v1.NodeInitializedLabelKey)
			n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule})
			nc := &v1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.NodePoolLabelKey: pool}}}
			nc.Status.NodeName = name
			if inFlight = rapid.Bool().Draw(t, name+"/in-flight"); inFlight {
				// No Node yet: only the NodeClaim, with its labels and capacity.
				nc.Labels = n.Labels
				nc.Status.Capacity, nc.Status.Allocatable = n.Status.Capacity, n.Status.Allocatable
				nc.Spec.Taints = n.Spec.Taints
			}
			w.NodeClaims = append(w.NodeClaims, nc)
		}
		if !inFlight {
			w.Nodes = append(w.Nodes, n)
		}
		pods := fake.PodsGeneratorWith(3, name+"-pod", propSettings).Draw(t, name+"/bound")
		for _, p := range pods {
			p.Status.Phase = corev1.PodRunning
		}
		w.bind(name, pods...)
	}
	for i := rapid.IntRange(0, 2).Draw(t, "daemonsets"); i > 0; i-- {
		w.DaemonSets = append(w.DaemonSets, fake.DaemonSetGenerator(fmt.Sprintf("ds-%d", i)).Draw(t, "daemonset"))
	}
	w.Pods = fake.PodsGeneratorWith(40, "pod", propSettings).Draw(t, "pending")
	for _, p := range w.Pods {
		drawRequestShape(t, p)
	}
	for _, p := range w.Pods {
		if rapid.IntRange(0, 9).Draw(t, p.Name+"/volume") < 9 {
			continue
		}
		zone := rapid.SampledFrom([]string{fake.TestZone1, fake.TestZone2, fake.TestZone3}).Draw(t, p.Name+"/volume-zone")
		claim, pv := "data-"+p.Name, "pv-"+p.Name
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
		w.PersistentVolumeClaims = append(w.PersistentVolumeClaims, &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: claim, Namespace: p.Namespace, Annotations: map[string]string{"pv.kubernetes.io/bind-completed": "yes"}},
			Spec:       corev1.PersistentVolumeClaimSpec{VolumeName: pv}})
		w.PersistentVolumes = append(w.PersistentVolumes, &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: pv},
			Spec: corev1.PersistentVolumeSpec{NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
					Key: v1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}}}}}}}})
	}
	if rapid.IntRange(0, 3).Draw(t, "ignore-preferences") == 0 {
		opts.PreferencePolicy = scheduling.PreferencesIgnore
	}
	if rapid.IntRange(0, 3).Draw(t, "best-effort-min-values") == 0 {
		opts.MinValuesPolicy = scheduling.MinValuesBestEffort
	}
	if rapid.IntRange(0, 3).Draw(t, "default-spread") == 0 {
		opts.DefaultTopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
			MaxSkew: int32(rapid.IntRange(1, 2).Draw(t, "default-spread/max-skew")), TopologyKey: v1.LabelTopologyZone,
			WhenUnsatisfiable: rapid.SampledFrom([]corev1.UnsatisfiableConstraintAction{corev1.DoNotSchedule, corev1.ScheduleAnyway}).Draw(t, "default-spread/when"),
		}}
	}
	return w, opts
}

// TestPropSolveIsValid: the default mode's result breaks no rule verify checks (resources,
// selectors, taints, host ports, zone and hostname spread, pod affinity and anti-affinity,
// limits, launch choice, accounting); Karpenter mode's breaks none but the DoNotSchedule
// spreads Karpenter's own plan breaks, each named with its pod and place (unexplained).
func TestPropSolveIsValid(t *testing.T) {
	for _, packing := range []scheduling.Packing{scheduling.PackingCostAware, scheduling.PackingKarpenter} {
		t.Run(string(packing), func(t *testing.T) { rapid.Check(t, solveIsValid(packing)) })
	}
}

// solveIsValid is TestPropSolveIsValid's property for one packing.
func solveIsValid(packing scheduling.Packing) func(*rapid.T) {
	return func(t *rapid.T) {
		w, opts := drawSolveWorld(t)
		opts.Packing = packing
		snap := w.snap(t)
		res, err := scheduling.Solve(snap, opts)
		if err != nil {
			t.Fatalf("Solve: %v", err)
		}
		vs := verify.Solve(snap, opts, res)
		if bad := unexplained(opts, vs); len(bad) > 0 {
			t.Fatalf("%d violations (%d unexplained):\n%s", len(vs), len(bad), describe(snap, res, vs))
		}
	}
}

// TestPropSolveIsValidFound replays the draws of TestPropSolveIsValid that once found a broken
// rule (testdata/rapid-found, one file per draw, named after its packing), as a fuzz corpus
// does.
func TestPropSolveIsValidFound(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "rapid-found", "*.fail"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		packing := scheduling.PackingCostAware
		if strings.HasPrefix(filepath.Base(file), string(scheduling.PackingKarpenter)) {
			packing = scheduling.PackingKarpenter
		}
		t.Run(filepath.Base(file), func(t *testing.T) {
			old := flag.Lookup("rapid.failfile").Value.String()
			require.NoError(t, flag.Set("rapid.failfile", file))
			t.Cleanup(func() { _ = flag.Set("rapid.failfile", old) })
			rapid.Check(t, solveIsValid(packing))
		})
	}
}

// unexplained are the violations vs of a Solve with opts that no defect of Karpenter's own
// provisioner explains: every one in the default mode. Karpenter mode gives Karpenter's plan,
// and Karpenter breaks a DoNotSchedule topology spread as launched (it counts a pod in a
// spread's domain only once its NodeClaim's domain is decided, and on any NodeClaim whose
// requirements are compatible with the spread's node filter, including one that launches
// outside it: TestKarpenterModeBreaksSpreadAsKarpenterDoes; under nodeAffinityPolicy
// Ignore it takes the minimum over the pod's own domains:
// TestKarpenterModeTakesTheIgnoreSpreadMinimumOverThePodsDomains; and it lets a pod a
// hostname spread only selects join a node holding the spread's pods:
// TopologySpreadAsLaunched), and it starts a required self-affinity's group anew when every
// match is in a domain the pod cannot reach (PodAffinityBootstrap:
// TestKarpenterModeStartsAffinityBesideOutOfReachMatches); the CLI reports each such
// violation by its pod and its node or NodeClaim (cmd/nodeplan
// TestKarpenterModeReportsViolations), so one that names no pod or no place is unexplained.
func unexplained(opts scheduling.Options, vs []verify.Violation) []verify.Violation {
	if opts.Packing != scheduling.PackingKarpenter {
		return vs
	}
	var out []verify.Violation
	for _, v := range vs {
		karpenters := v.Code == verify.TopologySpread || v.Code == verify.TopologySpreadAffinityIgnored ||
			v.Code == verify.TopologySpreadAsLaunched || v.Code == verify.PodAffinityBootstrap
		if !karpenters || v.Pod == "" || (v.Node == "" && v.Claim < 0) {
			out = append(out, v)
		}
	}
	return out
}

// describe lists the violations, the pods they name and the plan, for a failure report.
func describe(snap *cluster.Snapshot, res *scheduling.Result, vs []verify.Violation) string {
	s := ""
	all := append([]*corev1.Pod(nil), snap.Pending()...)
	for _, n := range snap.Nodes() {
		all = append(all, n.Pods...)
	}
	for _, v := range vs {
		s += v.String() + "\n"
		for _, p := range all {
			if p.Namespace+"/"+p.Name == v.Pod || p.Namespace+"/"+p.Name == v.OtherPod || ((v.Code == verify.TopologySpread || v.Code == verify.PodAffinity) && p.Labels["app"] == appOf(all, v.Pod)) {
				s += fmt.Sprintf("  %s labels=%v nodeSelector=%v affinity=%v\n", p.Name, p.Labels, p.Spec.NodeSelector, p.Spec.Affinity)
				for _, c := range p.Spec.TopologySpreadConstraints {
					s += fmt.Sprintf("    spread %s maxSkew=%d minDomains=%v affinityPolicy=%v taintsPolicy=%v\n", c.TopologyKey, c.MaxSkew,
						deref(c.MinDomains), deref(c.NodeAffinityPolicy), deref(c.NodeTaintsPolicy))
				}
			}
		}
	}
	for _, n := range snap.Nodes() {
		lbls, inFlight := n.Labels(), n.Node == nil
		s += fmt.Sprintf("input node %s zone=%s arch=%s pool=%s initialized=%s in-flight=%v:", n.Name(), lbls[v1.LabelTopologyZone], lbls[v1.LabelArch],
			lbls[v1.NodePoolLabelKey], lbls[v1.NodeInitializedLabelKey], inFlight)
		for _, p := range n.Pods {
			s += fmt.Sprintf(" %s%v", p.Name, p.Labels)
		}
		s += "\n"
	}
	for _, c := range res.NewNodeClaims {
		if c.InstanceType == nil || c.Offering == nil {
			continue
		}
		s += fmt.Sprintf("claim %s %s %s/%s/%s:", c.Hostname, c.NodePool, c.InstanceType.Name, c.Offering.Zone(), c.InstanceType.Requirements.Get("kubernetes.io/arch").Any())
		for _, p := range c.Pods {
			s += fmt.Sprintf(" %s%v", p.Name, p.Labels)
		}
		s += "\n"
	}
	for _, b := range res.Bindings {
		s += fmt.Sprintf("node %s: %s%v\n", b.To, b.Pod.Name, b.Pod.Labels)
	}
	return s
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func appOf(pods []*corev1.Pod, key string) string {
	for _, p := range pods {
		if p.Namespace+"/"+p.Name == key {
			return p.Labels["app"]
		}
	}
	return ""
}

// drawRequestShape sometimes gives a pending pod the request shapes Kubernetes aggregates:
// an init container larger than the app, a sidecar (restartable init container), pod
// overhead, or limits without requests.
func drawRequestShape(t *rapid.T, p *corev1.Pod) {
	c := p.Spec.Containers[0]
	switch rapid.IntRange(0, 9).Draw(t, p.Name+"/request-shape") {
	case 6:
		init := *c.DeepCopy()
		init.Name, init.Ports = "init", nil
		init.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(2*c.Resources.Requests.Cpu().MilliValue(), resource.DecimalSI)}
		p.Spec.InitContainers = append(p.Spec.InitContainers, init)
	case 7:
		always := corev1.ContainerRestartPolicyAlways
		side := *c.DeepCopy()
		side.Name, side.Ports, side.RestartPolicy = "sidecar", nil, &always
		p.Spec.InitContainers = append(p.Spec.InitContainers, side)
	case 8:
		p.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")}
	case 9:
		p.Spec.Containers[0].Resources.Limits = p.Spec.Containers[0].Resources.Requests
		p.Spec.Containers[0].Resources.Requests = nil
	}
}
