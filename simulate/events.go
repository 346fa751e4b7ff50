package simulate

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws/interruption"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/manifest"
)

// check refuses an event that names what the input does not have: a workload to scale, a
// workload or controller to select pods of, a NodePool to interrupt.
func (s *sim) check(ev *TimelineEvent) error {
	switch {
	case ev.Scale != nil:
		_, err := s.workload(ev.Scale.Kind, namespaceOr(ev.Scale.Namespace), ev.Scale.Name)
		return err
	case ev.AddPods != nil || ev.DeletePods != nil:
		sel := ev.AddPods
		if sel == nil {
			sel = ev.DeletePods
		}
		if sel.Owner == nil {
			return nil
		}
		if _, err := s.workload(sel.Owner.Kind, namespaceOr(sel.Namespace), sel.Owner.Name); err == nil {
			return nil
		}
		for _, p := range podsOf(s.state) {
			if controlledBy(p, sel.Owner) && p.Namespace == namespaceOr(sel.Namespace) {
				return nil
			}
		}
		return fmt.Errorf("owner: no workload and no pod's controller is %s %s/%s", sel.Owner.Kind, namespaceOr(sel.Namespace), sel.Owner.Name)
	case ev.Interrupt != nil && ev.Interrupt.NodePool != "":
		if s.state.NodePool(ev.Interrupt.NodePool) == nil {
			return fmt.Errorf("nodePool: no NodePool %q", ev.Interrupt.NodePool)
		}
	}
	return nil
}

func namespaceOr(ns string) string {
	if ns == "" {
		return "default"
	}
	return ns
}

// workload is the input's workload of that kind ("": Deployment, ReplicaSet or StatefulSet),
// namespace and name.
func (s *sim) workload(kind, namespace, name string) (*manifest.Workload, error) {
	var found []*manifest.Workload
	for _, w := range s.in.Workloads {
		if w.Namespace == namespace && w.Name == name && (w.Kind == kind || kind == "" && w.Kind != "Job") {
			found = append(found, w)
		}
	}
	switch len(found) {
	case 0:
		what := kind
		if what == "" {
			what = "Deployment, ReplicaSet or StatefulSet"
		}
		return nil, fmt.Errorf("the input has no %s %s/%s", what, namespace, name)
	case 1:
		return found[0], nil
	}
	return nil, fmt.Errorf("several workloads are called %s/%s: give the kind", namespace, name)
}

// controlledBy reports whether p's controller is of owner's kind and name.
func controlledBy(p *corev1.Pod, owner *Owner) bool {
	for _, r := range p.OwnerReferences {
		if r.Controller != nil && *r.Controller && r.Kind == owner.Kind && r.Name == owner.Name {
			return true
		}
	}
	return false
}

// timeline carries out a timeline event.
func (s *sim) timeline(ev *TimelineEvent) error {
	var err error
	switch {
	case ev.Scale != nil:
		err = s.scale(ev.Scale)
	case ev.AddPods != nil:
		err = s.addPods(ev.AddPods)
	case ev.DeletePods != nil:
		err = s.deletePods(ev.DeletePods, -1)
	case ev.Interrupt != nil:
		err = s.interrupt(ev.Interrupt)
	case ev.Apply != nil:
		err = s.apply(ev.Apply)
	}
	if err != nil {
		return fmt.Errorf("%s: %s: %w", ev.Source, ev.Action(), err)
	}
	pods := len(s.step.Added) + len(s.step.Removed)
	s.trace.event(Event{Kind: EventTimeline, Action: ev.Action(), Source: ev.Source, Pods: pods, Nodes: s.interrupted})
	s.interrupted = nil
	return nil
}

// active are the pods of w that count as its replicas: not finished, not being deleted.
func (s *sim) active(owns func(*corev1.Pod) bool) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range podsOf(s.state) {
		if owns(p) && !cluster.IsTerminal(p) && p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out
}

// scale adds or deletes pods of the workload until it runs the replicas asked.
func (s *sim) scale(sc *Scale) error {
	w, err := s.workload(sc.Kind, namespaceOr(sc.Namespace), sc.Name)
	if err != nil {
		return err
	}
	have := s.active(w.Owns)
	switch want := int(sc.Replicas); {
	case want > len(have):
		return s.addWorkloadPods(w, have, want-len(have))
	case want < len(have):
		return s.remove(s.deletionOrder(have, w.Kind == "StatefulSet")[:len(have)-want])
	}
	return nil
}

// addWorkloadPods adds n pods made from w's template: a StatefulSet's at the lowest free
// ordinals, the others' after the highest index in use.
func (s *sim) addWorkloadPods(w *manifest.Workload, have []*corev1.Pod, n int) error {
	used := map[int]bool{}
	highest := -1
	for _, p := range have {
		if i, ok := indexOf(p.Name, w.Name); ok {
			used[i] = true
			highest = max(highest, i)
		}
	}
	if next, ok := s.nextWorkloadIndex[w]; ok {
		highest = max(highest, next-1)
	}
	var pods []*corev1.Pod
	var claims []*corev1.PersistentVolumeClaim
	taken := s.podNames()
	for i := 0; len(pods) < n; i++ {
		idx := highest + 1 + i
		if w.Kind == "StatefulSet" {
			idx = i
			if used[idx] {
				continue
			}
		}
		made, cs := w.PodsAt(idx, 1)
		if len(made) == 0 {
			return errors.New("the workload has no pod template")
		}
		if taken[cluster.PodKey(made[0])] {
			continue
		}
		used[idx] = true
		pods, claims = append(pods, made...), append(claims, cs...)
		s.nextWorkloadIndex[w] = max(s.nextWorkloadIndex[w], idx+1)
	}
	return s.add(pods, claims)
}

// indexOf is the index a pod named <workload>-<index> has.
func indexOf(pod, workload string) (int, bool) {
	rest, ok := strings.CutPrefix(pod, workload+"-")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(rest)
	return i, err == nil && i >= 0
}

// podNames are the namespace/names of every pod the cluster holds.
func (s *sim) podNames() map[string]bool {
	names := map[string]bool{}
	for _, p := range s.state.Objects().Pods {
		names[cluster.PodKey(p)] = true
	}
	return names
}

// addPods adds a selection's pods: from the owner workload's template, or copies of the first
// pod (by name) it selects.
func (s *sim) addPods(sel *PodSelection) error {
	n := int(*sel.Count)
	ns := namespaceOr(sel.Namespace)
	if sel.Owner != nil {
		if w, err := s.workload(sel.Owner.Kind, ns, sel.Owner.Name); err == nil {
			return s.addWorkloadPods(w, s.active(w.Owns), n)
		}
	}
	matching, err := s.selected(sel)
	if err != nil {
		return err
	}
	if len(matching) == 0 {
		return errors.New("no pod to copy matches")
	}
	sort.Slice(matching, func(i, j int) bool { return matching[i].Name < matching[j].Name })
	base := matching[0]
	var pods []*corev1.Pod
	taken := s.podNames()
	for k := 1; len(pods) < n; k++ {
		c := pendingCopy(base)
		c.ObjectMeta = *base.ObjectMeta.DeepCopy()
		c.Name = fmt.Sprintf("%s-%d", base.Name, k)
		c.UID = ""
		c.DeletionTimestamp = nil
		if taken[cluster.PodKey(c)] {
			continue
		}
		taken[cluster.PodKey(c)] = true
		pods = append(pods, c)
	}
	return s.add(pods, nil)
}

// add puts new pending pods (and the claims a StatefulSet makes for them) in the cluster.
func (s *sim) add(pods []*corev1.Pod, claims []*corev1.PersistentVolumeClaim) error {
	if len(pods) == 0 {
		return nil
	}
	for _, p := range pods {
		p.CreationTimestamp = metav1.NewTime(s.now)
	}
	var missing []*corev1.PersistentVolumeClaim
	for _, c := range claims {
		if !hasClaim(s.state.PersistentVolumeClaims(), c) {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 { // a StatefulSet's new claims: the cluster is built again with them
		o := s.state.Objects()
		o.PersistentVolumeClaims = append(append([]*corev1.PersistentVolumeClaim(nil), o.PersistentVolumeClaims...), missing...)
		next, err := cluster.New(o)
		if err != nil {
			return err
		}
		s.state = next
	}
	next, err := s.state.WithPods(pods...)
	if err != nil {
		return err
	}
	s.state = next
	s.step.Added = append(s.step.Added, pods...)
	s.arrive()
	return nil
}

func hasClaim(claims []*corev1.PersistentVolumeClaim, c *corev1.PersistentVolumeClaim) bool {
	for _, x := range claims {
		if x.Namespace == c.Namespace && x.Name == c.Name {
			return true
		}
	}
	return false
}

// selected are the active pods a selection names, in the cluster's order.
func (s *sim) selected(sel *PodSelection) ([]*corev1.Pod, error) {
	ns := namespaceOr(sel.Namespace)
	if sel.Owner != nil {
		if w, err := s.workload(sel.Owner.Kind, ns, sel.Owner.Name); err == nil {
			return s.active(w.Owns), nil
		}
		return s.active(func(p *corev1.Pod) bool { return p.Namespace == ns && controlledBy(p, sel.Owner) }), nil
	}
	selector, err := metav1.LabelSelectorAsSelector(sel.Selector)
	if err != nil {
		return nil, err
	}
	return s.active(func(p *corev1.Pod) bool { return p.Namespace == ns && selector.Matches(labels.Set(p.Labels)) }), nil
}

// deletePods deletes Count (all when nil) of the selected pods for good.
func (s *sim) deletePods(sel *PodSelection, _ int) error {
	pods, err := s.selected(sel)
	if err != nil {
		return err
	}
	pods = s.deletionOrder(pods, false)
	if sel.Count != nil && int(*sel.Count) < len(pods) {
		pods = pods[:*sel.Count]
	}
	return s.remove(pods)
}

// remove deletes pods for good.
func (s *sim) remove(pods []*corev1.Pod) error {
	if len(pods) == 0 {
		return nil
	}
	s.state = s.state.WithoutPods(pods...)
	s.unconsolidate()
	s.step.Removed = append(s.step.Removed, pods...)
	return nil
}

// deletionOrder is the order a controller deletes pods in when it scales down: a
// StatefulSet's highest ordinal first; otherwise Kubernetes' ReplicaSet ranking: unbound,
// then not running, then the lower controller.kubernetes.io/pod-deletion-cost, then those
// on the node running more of them, then the newest, then the name (last first).
func (s *sim) deletionOrder(pods []*corev1.Pod, ordinal bool) []*corev1.Pod {
	out := append([]*corev1.Pod(nil), pods...)
	if ordinal {
		sort.SliceStable(out, func(i, j int) bool { return ordinalOf(out[i]) > ordinalOf(out[j]) })
		return out
	}
	onNode := map[string]int{}
	for _, p := range out {
		onNode[p.Spec.NodeName]++
	}
	running := func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning }
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if (a.Spec.NodeName == "") != (b.Spec.NodeName == "") {
			return a.Spec.NodeName == ""
		}
		if running(a) != running(b) {
			return !running(a)
		}
		if ca, cb := deletionCost(a), deletionCost(b); ca != cb {
			return ca < cb
		}
		if a.Spec.NodeName != "" && onNode[a.Spec.NodeName] != onNode[b.Spec.NodeName] {
			return onNode[a.Spec.NodeName] > onNode[b.Spec.NodeName]
		}
		if ta, tb := startOf(a), startOf(b); !ta.Equal(tb) {
			return ta.After(tb)
		}
		return a.Name > b.Name
	})
	return out
}

func ordinalOf(p *corev1.Pod) int {
	i := strings.LastIndexByte(p.Name, '-')
	n, err := strconv.Atoi(p.Name[i+1:])
	if err != nil {
		return -1
	}
	return n
}

func deletionCost(p *corev1.Pod) int64 {
	v, err := strconv.ParseInt(p.Annotations["controller.kubernetes.io/pod-deletion-cost"], 10, 32)
	if err != nil {
		return 0
	}
	return v
}

func startOf(p *corev1.Pod) time.Time {
	if p.Status.StartTime != nil {
		return p.Status.StartTime.Time
	}
	return p.CreationTimestamp.Time
}

// interrupt sends spot interruption warnings to the matching spot nodes: Karpenter reads
// them at the next Plan (queued at once) and deletes the nodes; each instance ends
// InterruptionWarning later; the interrupted offerings are unavailable for UnavailableFor.
func (s *sim) interrupt(in *Interrupt) error {
	var nodes []*cluster.Node
	for _, n := range s.state.Nodes() {
		l := n.Labels()
		switch {
		case n.Node == nil, n.Deleting(), providerID(n) == "",
			l[v1.CapacityTypeLabelKey] != v1.CapacityTypeSpot,
			in.InstanceType != "" && l[v1.LabelInstanceType] != in.InstanceType,
			in.Zone != "" && l[v1.LabelTopologyZone] != in.Zone,
			in.NodePool != "" && l[v1.NodePoolLabelKey] != in.NodePool:
			continue
		}
		if _, ending := s.instanceEnds[n.Name()]; ending {
			continue
		}
		nodes = append(nodes, n)
	}
	sort.SliceStable(nodes, func(i, j int) bool { return nameHash(nodes[i].Name()) < nameHash(nodes[j].Name()) })
	take := len(nodes)
	switch {
	case in.Count != nil:
		take = min(take, int(*in.Count))
	case in.Fraction != nil:
		take = int(math.Ceil(*in.Fraction * float64(len(nodes))))
	}
	nodes = nodes[:take]
	var events []interruption.Event
	var keys []string
	for i, n := range nodes {
		id := providerID(n)
		events = append(events, interruption.Event{Kind: interruption.SpotInterrupted, ID: fmt.Sprintf("simulate-%s-%d", s.now.UTC().Format("150405"), i),
			Time: s.now, InstanceIDs: []string{id[strings.LastIndexByte(id, '/')+1:]}, InstanceAction: "terminate"})
		s.instanceEnds[n.Name()] = s.now.Add(s.set.InterruptionWarning)
		s.queue.push(s.instanceEnds[n.Name()], kindInstanceEnd, n.Name())
		keys = append(keys, offeringKey(n))
		s.interrupted = append(s.interrupted, n.Name())
	}
	if len(events) == 0 {
		return nil
	}
	s.state = s.state.WithInterruptions(append(append([]interruption.Event(nil), s.state.Interruptions()...), events...)...)
	before := s.cloud.Unavailable()
	s.cloud.MarkUnavailable(keys...)
	if err := s.noteUnavailable(before); err != nil {
		return err
	}
	s.queue.push(s.now, kindTick, extraTick{}) // the interruption controller acts at once
	return nil
}

// providerID is the node's provider ID (Node's, else its NodeClaim's).
func providerID(n *cluster.Node) string {
	if n.Node != nil && n.Node.Spec.ProviderID != "" {
		return n.Node.Spec.ProviderID
	}
	if n.NodeClaim != nil {
		return n.NodeClaim.Status.ProviderID
	}
	return ""
}

func nameHash(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// apply replaces NodePools and PodDisruptionBudgets (or adds them); the NodePools' instance
// types are asked anew.
func (s *sim) apply(a *Apply) error {
	for _, np := range a.Objects.NodePools {
		var types cloudprovider.InstanceTypes
		if s.in.InstanceTypes != nil {
			var err error
			if types, err = s.in.InstanceTypes(np); err != nil {
				return fmt.Errorf("instance types of NodePool %q: %w", np.Name, err)
			}
		} else {
			types = s.in.Snapshot.InstanceTypes()[np.Name]
		}
		s.cloud.InstanceTypesForNodePool[np.Name] = types
	}
	next, err := s.state.WithNodePools(a.Objects.NodePools...)
	if err != nil {
		return err
	}
	if len(a.Objects.PodDisruptionBudgets) > 0 {
		if next, err = next.WithPodDisruptionBudgets(a.Objects.PodDisruptionBudgets...); err != nil {
			return err
		}
	}
	s.state = next
	if len(a.Objects.NodePools) > 0 {
		s.unconsolidate()
	}
	return s.refreshTypes()
}
