package scheduling

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
)

// claim is a NodeClaim opened in this Solve.
type claim struct {
	t        *template
	hostname string
	reqs     requirements.Requirements
	types    bitset // template types that still fit every pod
	maxAlloc vec    // per-resource maximum allocatable over types
	requests vec
	pods     []*podData
	ports    []hostPort
	relaxed  bool

	count      int
	prev, next *claim
}

// placement is a successful trial: the claim's requirements and types after adding the pod.
type placement struct {
	reqs  requirements.Requirements
	types bitset
}

// tryAdd adds p (with form f) to c if it fits, and returns "" or why it does not.
func (c *claim) tryAdd(s *solver, p *podData, f *podForm) string {
	pl, why := c.check(s, p, f)
	if why != "" {
		return why
	}
	c.commit(s, p, f, pl)
	return ""
}

func (c *claim) check(s *solver, p *podData, f *podForm) (placement, string) {
	t := c.t
	if !fits2(c.requests, p.requests, c.maxAlloc) {
		return placement{}, "insufficient resources"
	}
	if !tolerates(f.tolerations, t.taints) {
		return placement{}, fmt.Sprintf("did not tolerate taints of NodePool %q", t.name)
	}
	if len(p.ports) > 0 && portsConflict(c.ports, p.ports) {
		return placement{}, "host port conflict"
	}
	if err := c.reqs.Compatible(f.reqs, s.wellKnown); err != nil {
		if len(c.pods) == 0 {
			return placement{}, fmt.Sprintf("incompatible with NodePool %q: %v", t.name, err)
		}
		return placement{}, "incompatible requirements"
	}
	merged := c.reqs
	var changed []string
	for k, pr := range f.reqs {
		cur, had := c.reqs[k]
		var next *requirements.Requirement
		if had {
			if cur.Equal(pr) {
				continue
			}
			next = cur.Intersection(pr)
			if next.Equal(cur) {
				continue
			}
		} else {
			next = pr
		}
		if len(changed) == 0 {
			merged = c.reqs.Copy()
		}
		merged[k] = next
		changed = append(changed, k)
	}
	narrowed, failedKey, ok := s.topo.requirementsFor(p, f, merged)
	if !ok {
		return placement{}, fmt.Sprintf("no %q domain satisfies the pod's topology constraints", failedKey)
	}
	for k, r := range narrowed {
		if len(changed) == 0 {
			merged = c.reqs.Copy()
		}
		merged[k] = merged.Get(k).Intersection(r)
		changed = append(changed, k)
	}
	types := c.types
	if len(changed) > 0 {
		types = append(s.scratch[:0], c.types...)
		offers := false
		for _, k := range changed {
			types.andWith(t.typesFor(k, merged[k]))
			for _, ok := range t.offerKeys {
				if ok == k {
					offers = true
				}
			}
		}
		if offers {
			types.andWith(t.typesWithOffering(merged))
		}
		s.scratch = types
	}
	// The remaining types all fit the claim's pods; keep those that also fit p.
	out := newBitset(len(t.types))
	found := false
	types.each(func(i int) bool {
		tt := t.types[i]
		if fits2(c.requests, p.requests, tt.alloc) && (len(p.ports) == 0 || !portsConflict(tt.daemonPorts, p.ports)) {
			out.set(i)
			found = true
		}
		return true
	})
	if !found {
		if len(c.pods) == 0 {
			return placement{}, s.noTypeReason(t, p, types)
		}
		return placement{}, "no instance type fits"
	}
	if t.hasMinValues {
		if key, have, want := t.minValuesShortfall(out, merged); key != "" {
			if s.opts.MinValuesPolicy != MinValuesBestEffort {
				return placement{}, fmt.Sprintf("NodePool %q: minValues of %q is %d but the instance types that fit offer only %d values", t.name, key, want, have)
			}
		}
	}
	return placement{reqs: merged, types: out}, ""
}

func (c *claim) commit(s *solver, p *podData, f *podForm, pl placement) {
	c.reqs = pl.reqs
	c.types = pl.types
	c.requests.add(p.requests)
	c.pods = append(c.pods, p)
	c.ports = append(c.ports, p.ports...)
	c.maxAlloc = make(vec, len(s.res.names))
	for i := range c.maxAlloc {
		c.maxAlloc[i] = -1 << 62
	}
	c.types.each(func(i int) bool {
		a := c.t.types[i].alloc
		for r := range c.maxAlloc {
			if a[r] > c.maxAlloc[r] {
				c.maxAlloc[r] = a[r]
			}
		}
		return true
	})
	s.topo.record(p, s.ownedInverse(p, f), c.reqs, c.t.taints)
}

// ownedInverse are the inverse groups of p's required anti-affinity terms.
func (s *solver) ownedInverse(p *podData, f *podForm) []*topologyGroup {
	if len(f.requiredAnti) == 0 {
		return nil
	}
	return s.inverseGroups(p.pod)
}

// noTypeReason explains why no instance type of t fits p alone.
func (s *solver) noTypeReason(t *template, p *podData, compatible bitset) string {
	if compatible.empty() {
		return fmt.Sprintf("NodePool %q: no instance type satisfies the pod's requirements", t.name)
	}
	return fmt.Sprintf("NodePool %q: no instance type has enough resources for requests %s (with daemonset overhead)", t.name, formatResources(s.res.list(p.requests)))
}

func formatResources(rl corev1.ResourceList) string {
	names := make([]string, 0, len(rl))
	for n := range rl {
		names = append(names, string(n))
	}
	sort.Strings(names)
	out := "{"
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		q := rl[corev1.ResourceName(n)]
		out += n + ": " + q.String()
	}
	return out + "}"
}

// newClaim opens a NodeClaim of template t for p, or says why it cannot.
func (s *solver) newClaim(t *template, p *podData, f *podForm) (*claim, string) {
	if t.nodesLeft == 0 {
		return nil, fmt.Sprintf("NodePool %q: node limit reached", t.name)
	}
	types := t.all
	if t.hasLimits {
		types = t.all.clone()
		for i, tt := range t.types {
			for r, lim := range t.limited {
				if lim && tt.capacity[r] > t.remaining[r] {
					types.clear(i)
					break
				}
			}
		}
		if types.empty() {
			return nil, fmt.Sprintf("NodePool %q: all instance types exceed its remaining limits", t.name)
		}
	}
	hostname := fmt.Sprintf("hostname-placeholder-%04d", s.hostnameSeq)
	c := &claim{
		t:        t,
		hostname: hostname,
		reqs:     t.reqs.Copy(),
		types:    types,
		requests: make(vec, len(s.res.names)),
		maxAlloc: make(vec, len(s.res.names)),
	}
	c.reqs.Add(requirements.MustNew(v1.LabelHostname, requirements.In, hostname))
	for i := range c.maxAlloc {
		c.maxAlloc[i] = 1 << 62
	}
	pl, why := c.check(s, p, f)
	if why != "" {
		return nil, why
	}
	s.hostnameSeq++
	c.commit(s, p, f, pl)
	if t.hasLimits {
		maxCap := make(vec, len(s.res.names))
		c.types.each(func(i int) bool {
			for r, x := range t.types[i].capacity {
				if x > maxCap[r] {
					maxCap[r] = x
				}
			}
			return true
		})
		t.remaining.sub(maxCap)
	}
	if t.nodesLeft > 0 {
		t.nodesLeft--
	}
	s.claims = append(s.claims, c)
	s.insertClaim(c)
	return c, ""
}

// insertClaim appends a claim with one pod behind every other one-pod claim.
func (s *solver) insertClaim(c *claim) {
	c.count = len(c.pods)
	after := s.lastOfCount[c.count]
	if after == nil {
		// behind every claim with fewer pods: find the last claim with count < c.count
		for x := s.tail; x != nil; x = x.prev {
			if x.count < c.count {
				after = x
				break
			}
		}
	}
	s.linkAfter(c, after)
	s.lastOfCount[c.count] = c
}

func (s *solver) linkAfter(c, after *claim) {
	if after == nil {
		c.prev, c.next = nil, s.head
		if s.head != nil {
			s.head.prev = c
		}
		s.head = c
		if s.tail == nil {
			s.tail = c
		}
		return
	}
	c.prev, c.next = after, after.next
	if after.next != nil {
		after.next.prev = c
	} else {
		s.tail = c
	}
	after.next = c
}

func (s *solver) unlink(c *claim) {
	if c.prev != nil {
		c.prev.next = c.next
	} else {
		s.head = c.next
	}
	if c.next != nil {
		c.next.prev = c.prev
	} else {
		s.tail = c.prev
	}
	c.prev, c.next = nil, nil
}

// bumpCount moves a claim that gained a pod to the front of the next count's block, which is
// where a stable sort by pod count would put it.
func (s *solver) bumpCount(c *claim) {
	old := c.count
	if s.lastOfCount[old] == c {
		if c.prev != nil && c.prev.count == old {
			s.lastOfCount[old] = c.prev
		} else {
			delete(s.lastOfCount, old)
		}
	}
	anchor := s.lastOfCount[old]
	if anchor == nil {
		anchor = c.prev
	}
	s.unlink(c)
	c.count = len(c.pods)
	if anchor == nil {
		s.linkAfter(c, nil)
	} else {
		s.linkAfter(c, anchor)
	}
	if last := s.lastOfCount[c.count]; last == nil {
		s.lastOfCount[c.count] = c
	}
}

// finalize turns a claim into the result's NodeClaim: instance-type options by price under
// the claim's requirements (at most MaxInstanceTypes), the cheapest launchable choice, the
// requests with the smallest DaemonSet overhead, and resolved labels.
func (s *solver) finalize(c *claim, errs map[*podData]string) *NodeClaim {
	t := c.t
	type option struct {
		tt    *templateType
		offer *cloudprovider.Offering
	}
	var opts []option
	reqs := c.reqs.Copy()
	delete(reqs, v1.LabelHostname)
	c.types.each(func(i int) bool {
		tt := t.types[i]
		if o := cheapestOffering(tt.it, reqs); o != nil {
			opts = append(opts, option{tt, o})
		}
		return true
	})
	sort.SliceStable(opts, func(i, j int) bool {
		if opts[i].offer.Price != opts[j].offer.Price {
			return opts[i].offer.Price < opts[j].offer.Price
		}
		return opts[i].tt.it.Name < opts[j].tt.it.Name
	})
	if len(opts) > s.opts.MaxInstanceTypes {
		opts = opts[:s.opts.MaxInstanceTypes]
	}
	out := &NodeClaim{
		NodePool:      t.name,
		Hostname:      c.hostname,
		Taints:        t.taints,
		StartupTaints: t.startupTaints,
		Labels:        map[string]string{},
	}
	if len(opts) == 0 {
		for _, p := range c.pods {
			errs[p] = fmt.Sprintf("NodePool %q: no launchable offering left for the NodeClaim", t.name)
		}
		return nil
	}
	names := make([]string, 0, len(opts))
	cts := map[string]bool{}
	minOverhead := opts[0].tt.overhead.clone()
	for _, o := range opts {
		names = append(names, o.tt.it.Name)
		out.InstanceTypeOptions = append(out.InstanceTypeOptions, o.tt.it)
		for _, off := range o.tt.it.Offerings {
			if off.Available && offeringCompatible(off, reqs) {
				cts[off.CapacityType()] = true
			}
		}
		for r, x := range o.tt.overhead {
			if x < minOverhead[r] {
				minOverhead[r] = x
			}
		}
	}
	itReq := requirements.MustNew(v1.LabelInstanceType, requirements.In, names...)
	if old, ok := reqs[v1.LabelInstanceType]; ok && old.MinValues() > 0 {
		itReq = itReq.WithMinValues(old.MinValues())
	}
	reqs[v1.LabelInstanceType] = itReq
	ctNames := make([]string, 0, len(cts))
	for ct := range cts {
		ctNames = append(ctNames, ct)
	}
	sort.Strings(ctNames)
	if len(ctNames) > 0 {
		ct := requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, ctNames...)
		if old, ok := reqs[v1.CapacityTypeLabelKey]; ok && old.MinValues() > 0 {
			ct = ct.WithMinValues(old.MinValues())
		}
		reqs[v1.CapacityTypeLabelKey] = ct
	}
	if t.hasMinValues && s.opts.MinValuesPolicy != MinValuesBestEffort {
		set := newBitset(len(t.types))
		for i, tt := range t.types {
			for _, o := range opts {
				if o.tt == tt {
					set.set(i)
				}
			}
		}
		if key, have, want := t.minValuesShortfall(set, reqs); key != "" {
			for _, p := range c.pods {
				errs[p] = fmt.Sprintf("NodePool %q couldn't meet minValues requirements: %q needs %d values, the %d cheapest types offer %d", t.name, key, want, len(opts), have)
			}
			return nil
		}
	}
	out.Requirements = reqs
	out.InstanceType = opts[0].tt.it
	out.Offering = opts[0].offer
	for k, v := range t.labels {
		out.Labels[k] = v
	}
	for _, k := range reqs.Keys() {
		if s.wellKnown[k] || v1.IsRestrictedLabel(k) || k == v1.LabelHostname {
			continue
		}
		if _, ok := out.Labels[k]; ok {
			continue
		}
		r := reqs[k]
		if r.Operator() == requirements.DoesNotExist {
			continue
		}
		if v := r.Any(); v != "" {
			out.Labels[k] = v
		}
	}
	total := c.requests.clone()
	total.add(minOverhead)
	out.Requests = s.res.list(total)
	for _, p := range c.pods {
		out.Pods = append(out.Pods, p.pod)
	}
	return out
}
