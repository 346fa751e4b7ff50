package verify_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// TestSolveCodes: for every code, a valid Solve result passes and the same result broken
// by hand is caught with that code.
func TestSolveCodes(t *testing.T) {
	twoPods := func() *world { return schedWorld(pending("a", "100m").Obj(), pending("b", "100m").Obj()) }
	onNode := func() *world {
		w := schedWorld(pending("a", "100m").Obj())
		w.addNode("node-a", "default", fake.TestZone1, 4)
		return w
	}
	zoned := func(zone string) func() *world {
		return func() *world {
			return schedWorld(pending("a", "100m").NodeSelector(v1.LabelTopologyZone, zone).Obj(),
				pending("b", "100m").NodeSelector(v1.LabelTopologyZone, zone).Obj())
		}
	}
	cases := []struct {
		code    verify.ViolationCode
		in      func() *world
		breakIt func(w *world, res *scheduling.Result)
	}{
		{verify.PodMissing, twoPods, func(w *world, res *scheduling.Result) {
			res.NewNodeClaims[0].Pods = res.NewNodeClaims[0].Pods[:1]
		}},
		{verify.PodDuplicated, twoPods, func(w *world, res *scheduling.Result) {
			res.PodErrors = append(res.PodErrors, scheduling.PodError{Pod: w.Pods[0]})
		}},
		{verify.PodUnknown, twoPods, func(w *world, res *scheduling.Result) {
			res.NewNodeClaims[0].Pods = append(res.NewNodeClaims[0].Pods, pending("stranger", "1m").Obj())
		}},
		{verify.NodeUnknown, twoPods, func(w *world, res *scheduling.Result) {
			res.Bindings = append(res.Bindings, cluster.Move{To: "ghost", Claim: -1})
		}},
		{verify.NodeDeleting, onNode, func(w *world, res *scheduling.Result) {
			w.deleting = []string{"node-a"}
		}},
		{verify.ClaimEmpty, twoPods, func(w *world, res *scheduling.Result) {
			res.NewNodeClaims = append(res.NewNodeClaims, &scheduling.NodeClaim{NodePool: "default", Hostname: "empty"})
		}},
		{verify.ClaimNodePoolUnknown, twoPods, func(w *world, res *scheduling.Result) {
			res.NewNodeClaims[0].NodePool = "nope"
		}},
		{verify.LaunchMissing, twoPods, func(w *world, res *scheduling.Result) {
			res.NewNodeClaims[0].Offering = nil
		}},
		{verify.LaunchTypeNotAllowed, twoPods, func(w *world, res *scheduling.Result) {
			c := res.NewNodeClaims[0]
			c.InstanceType = fake.NewInstanceType(fake.InstanceTypeOptions{Name: "other", Offerings: c.InstanceType.Offerings})
		}},
		{verify.LaunchOfferingUnavailable, twoPods, func(w *world, res *scheduling.Result) {
			o := *res.NewNodeClaims[0].Offering
			o.Available = false
			res.NewNodeClaims[0].Offering = &o
		}},
		{verify.LaunchRequirements, zoned(fake.TestZone2), func(w *world, res *scheduling.Result) {
			c := res.NewNodeClaims[0]
			c.Offering = offeringIn(c.InstanceType, fake.TestZone1, c.Offering.CapacityType())
		}},
		{verify.LaunchNodePool, twoPods, func(w *world, res *scheduling.Result) {
			w.NodePools[0].Spec.Template.ObjectMeta.Labels = map[string]string{"team": "a"}
		}},
		{verify.ResourcesExceeded, twoPods, func(w *world, res *scheduling.Result) {
			w.Pods[0].Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("64")
		}},
		{verify.ResourcesExceeded, onNode, func(w *world, res *scheduling.Result) {
			w.bind("node-a", running("big", "3950m"))
		}},
		{verify.NodeSelectorMismatch, zoned(fake.TestZone2), func(w *world, res *scheduling.Result) {
			w.Pods[0].Spec.NodeSelector[v1.LabelTopologyZone] = fake.TestZone3
		}},
		{verify.TaintNotTolerated, twoPods, func(w *world, res *scheduling.Result) {
			res.NewNodeClaims[0].Taints = []corev1.Taint{{Key: "team", Value: "a", Effect: corev1.TaintEffectNoSchedule}}
		}},
		{verify.TaintNotTolerated, onNode, func(w *world, res *scheduling.Result) {
			w.node("node-a").Spec.Taints = []corev1.Taint{{Key: "team", Value: "a", Effect: corev1.TaintEffectNoExecute}}
		}},
		{verify.HostPortConflict, twoPods, func(w *world, res *scheduling.Result) {
			withPort(w.Pods[0], 8080)
			withPort(w.Pods[1], 8080)
		}},
		{verify.VolumeTopology, zoned(fake.TestZone2), func(w *world, res *scheduling.Result) {
			w.Pods[0].Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}
			w.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "default"},
				Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv-data"}}}
			w.PersistentVolumes = []*corev1.PersistentVolume{{ObjectMeta: metav1.ObjectMeta{Name: "pv-data"},
				Spec: corev1.PersistentVolumeSpec{NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{
					NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
						Key: v1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{fake.TestZone1}}}}}}}}}}
		}},
		{verify.TopologySpread, func() *world {
			return schedWorld(pending("a", "100m").Label("app", "web").Obj(), pending("b", "100m").Label("app", "web").Obj(),
				pending("c", "100m").Label("app", "web").Obj())
		}, func(w *world, res *scheduling.Result) {
			for _, p := range w.Pods {
				p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: v1.LabelTopologyZone,
					WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
			}
		}},
		{verify.TopologySpreadAffinityIgnored, func() *world {
			w := schedWorld(pending("p", "100m").Label("app", "web").NodeSelector(v1.LabelTopologyZone, fake.TestZone3).
				TopologySpread(v1.LabelTopologyZone, 1, map[string]string{"app": "web"}).Obj())
			w1, w2 := running("w1", "100m"), running("w2", "100m")
			w1.Labels["app"], w2.Labels["app"] = "web", "web"
			w.addNode("node-c", "", fake.TestZone3, 4, w1, w2)
			// Nodes in zones 1 and 2 (no web pod): under Ignore the spread's minimum over the
			// Nodes' zones, all kube-scheduler sees when p binds to node-c at once, is 0.
			w.addNode("node-a", "", fake.TestZone1, 4)
			w.addNode("node-b", "", fake.TestZone2, 4)
			return w
		}, func(w *world, res *scheduling.Result) {
			ignore := corev1.NodeInclusionPolicyIgnore
			w.Pods[0].Spec.TopologySpreadConstraints[0].NodeAffinityPolicy = &ignore
		}},
		{verify.PodAffinity, func() *world {
			w := schedWorld(pending("a", "100m").NodeSelector(v1.LabelTopologyZone, fake.TestZone1).Obj())
			w.addNode("node-b", "", fake.TestZone2, 1, running("db", "100m"))
			return w
		}, func(w *world, res *scheduling.Result) {
			w.Pods[0].Spec.NodeSelector = nil
			w.Pods[0].Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				TopologyKey: v1.LabelTopologyZone, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}}}}}
		}},
		{verify.PodAffinityBootstrap, func() *world {
			return schedWorld(pending("a", "100m").Label("app", "g").NodeSelector(v1.LabelTopologyZone, fake.TestZone1).Obj(),
				pending("b", "100m").Label("app", "g").NodeSelector(v1.LabelTopologyZone, fake.TestZone2).Obj())
		}, func(w *world, res *scheduling.Result) {
			for _, p := range w.Pods {
				p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
					TopologyKey: v1.LabelTopologyZone, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "g"}}}}}}
			}
		}},
		{verify.PodAntiAffinity, twoPods, func(w *world, res *scheduling.Result) {
			w.Pods[0].Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				TopologyKey: v1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "b"}}}}}}
		}},
		{verify.PodAntiAffinity, onNode, func(w *world, res *scheduling.Result) {
			q := running("guard", "100m")
			q.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				TopologyKey: v1.LabelTopologyZone, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}}}}}
			w.bind("node-a", q)
		}},
		{verify.NodePoolLimit, twoPods, func(w *world, res *scheduling.Result) {
			w.NodePools[0].Spec.Limits = v1.Limits{corev1.ResourceCPU: resource.MustParse("500m")}
		}},
		{verify.NodePoolLimit, onNode, func(w *world, res *scheduling.Result) {
			w.NodePools[0].Spec.Limits = v1.Limits{"nodes": resource.MustParse("1")}
			w.Pods[0].Spec.NodeSelector = map[string]string{v1.LabelTopologyZone: fake.TestZone2}
			res.Bindings = nil
			c := &scheduling.NodeClaim{NodePool: "default", Hostname: "h", Pods: w.Pods,
				Requirements: requirements.NewRequirements(requirements.MustNew(v1.LabelTopologyZone, requirements.In, fake.TestZone2)),
				InstanceType: w.InstanceTypes["default"][3]}
			c.InstanceTypeOptions = cloudprovider.InstanceTypes{c.InstanceType}
			c.Offering = offeringIn(c.InstanceType, fake.TestZone2, v1.CapacityTypeOnDemand)
			res.NewNodeClaims = []*scheduling.NodeClaim{c}
		}},
	}
	for _, c := range cases {
		t.Run(string(c.code), func(t *testing.T) {
			w := c.in()
			res := mustSolve(t, w.snap(t), scheduling.Options{})
			if len(res.PodErrors) > 0 {
				t.Fatalf("setup: %v", res.PodErrors)
			}
			c.breakIt(w, res)
			vs := verify.Solve(w.snap(t), scheduling.Options{}, res)
			if !hasCode(vs, c.code) {
				t.Fatalf("want %s, got %v", c.code, vs)
			}
			for _, v := range vs {
				if v.String() == "" || v.Error() != v.String() {
					t.Fatalf("bad text for %#v", v)
				}
			}
		})
	}
}

// TestSolveDaemonSetsAsTheyRun: a DaemonSet with DRA claims is left out of the overhead
// (as Karpenter leaves it), one that does not tolerate a NoSchedule taint does not run
// there, and PreferNoSchedule does not keep one away.
func TestSolveDaemonSetsAsTheyRun(t *testing.T) {
	w := schedWorld(pending("a", "100m").Obj())
	res := mustSolve(t, w.snap(t), scheduling.Options{})
	big := pending("ds", "64").Obj()
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "ds", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: big.Spec}}}
	w.DaemonSets = []*appsv1.DaemonSet{ds}
	if vs := verify.Solve(w.snap(t), scheduling.Options{}, res); !hasCode(vs, verify.ResourcesExceeded) {
		t.Fatalf("a 64-CPU DaemonSet must not fit: %v", vs)
	}
	ds.Spec.Template.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu"}}
	if vs := verify.Solve(w.snap(t), scheduling.Options{}, res); len(vs) > 0 {
		t.Fatalf("DRA DaemonSet counted: %v", vs)
	}
	ds.Spec.Template.Spec.ResourceClaims = nil
	res.NewNodeClaims[0].Taints = []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}
	w.Pods[0].Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}}
	if vs := verify.Solve(w.snap(t), scheduling.Options{}, res); len(vs) > 0 {
		t.Fatalf("DaemonSet kept off by a NoSchedule taint counted: %v", vs)
	}
	res.NewNodeClaims[0].Taints[0].Effect = corev1.TaintEffectPreferNoSchedule
	if vs := verify.Solve(w.snap(t), scheduling.Options{}, res); !hasCode(vs, verify.ResourcesExceeded) {
		t.Fatalf("PreferNoSchedule keeps no DaemonSet away: %v", vs)
	}
}
