package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// The node table of plan and disrupt (what eks-node-viewer shows, before and after): one
// row per existing node and per NodeClaim the plan launches, with its NodePool, instance
// type, zone, capacity type, cpu and memory requested of allocatable, pods and $/hour; then
// totals for the cluster now, after the plan and, when known, the lower bound.

// usage is a resource requested of allocatable (cpu in millicores, memory in bytes).
type usage struct{ requested, allocatable int64 }

func (u *usage) add(o usage) { u.requested += o.requested; u.allocatable += o.allocatable }

// nodeRow is one row of the node table.
type nodeRow struct {
	Name string
	// Status is existing, in flight, new (plan), or in disrupt kept, deleting, a command
	// ("command 2: drift"), provisioned or replacement (command N).
	Status                                 string
	NodePool, InstanceType, Zone, Capacity string
	CPU, Memory                            usage
	Pods                                   int
	PricePerHour                           float64
	// Priced is false when the node's price is unknown (its type or offering is not in the
	// catalog); Estimated when it is a spot estimate.
	Priced, Estimated bool
	// PodNames are the pods the row's node runs after the plan (existing nodes: those it
	// places there); Removed is true for a node the plan deletes.
	PodNames []string
	Removed  bool
	// New is true for a NodeClaim the plan launches.
	New bool
	// placedCPU, placedMemory and placedPods are what the plan adds to an existing node
	// (counted after the plan, not now).
	placedCPU, placedMemory int64
	placedPods              int
	// Shares are the pods the node runs after the plan with their requests (the picture's
	// fill); a NodeClaim's DaemonSet overhead is one share named daemonSetShare.
	Shares []podShare
}

// podShare is one pod's requests on a node.
type podShare struct {
	Pod, Owner  string
	CPU, Memory int64
	// Placed is true for a pod the plan places (not bound before).
	Placed bool
}

// daemonSetShare names the DaemonSet overhead of a NodeClaim in its shares.
const daemonSetShare = "DaemonSets"

// sharesOf are the pods' shares.
func sharesOf(pods []*corev1.Pod, placed bool) []podShare {
	out := make([]podShare, 0, len(pods))
	for _, p := range pods {
		rl := scheduling.PodRequests(p)
		out = append(out, podShare{Pod: podName(p), Owner: ownerOf(p, nil), CPU: rl.Cpu().MilliValue(), Memory: rl.Memory().Value(), Placed: placed})
	}
	return out
}

// totals sums rows: nodes, cpu, memory, pods and $/hour.
type totals struct {
	Nodes        int
	CPU, Memory  usage
	Pods         int
	PricePerHour float64
	Estimated    bool
}

func (t *totals) add(r nodeRow) {
	t.Nodes++
	t.CPU.add(r.CPU)
	t.Memory.add(r.Memory)
	t.Pods += r.Pods
	t.PricePerHour += r.PricePerHour
	t.Estimated = t.Estimated || r.Estimated
}

// costSummary is the table's totals: the cluster now, after the plan, and the lower bound
// when one was computed.
type costSummary struct {
	Now, After totals
	LowerBound *float64
}

func summarizeRows(rows []nodeRow, lowerBound *float64) costSummary {
	s := costSummary{LowerBound: lowerBound}
	for _, r := range rows {
		if !r.New {
			now := r
			now.CPU.requested -= r.placedCPU
			now.Memory.requested -= r.placedMemory
			now.Pods -= r.placedPods
			s.Now.add(now)
		}
		if !r.Removed {
			s.After.add(r)
		}
	}
	return s
}

// sumShares sums the shares' requests (as Solve counts them, sharesOf).
func sumShares(shares []podShare) (cpu, memory int64) {
	for _, sh := range shares {
		cpu += sh.CPU
		memory += sh.Memory
	}
	return cpu, memory
}

// existingRow is the row of a node of the snapshot, with the pods placed on it.
func existingRow(snap *cluster.Snapshot, n *cluster.Node, ic *instanceCatalog) nodeRow {
	r := nodeRow{Name: n.Name(), Status: "existing"}
	var labels map[string]string
	var alloc corev1.ResourceList
	switch {
	case n.Node != nil:
		labels, alloc = n.Node.Labels, n.Node.Status.Allocatable
	case n.NodeClaim != nil:
		labels, alloc = n.NodeClaim.Labels, n.NodeClaim.Status.Allocatable
		r.Status = "in flight"
	}
	r.NodePool, r.InstanceType = labels[v1.NodePoolLabelKey], labels[v1.LabelInstanceType]
	r.Zone, r.Capacity = labels[v1.LabelTopologyZone], labels[v1.CapacityTypeLabelKey]
	r.CPU.allocatable, r.Memory.allocatable = alloc.Cpu().MilliValue(), alloc.Memory().Value()
	r.Shares = sharesOf(n.Pods, false)
	r.CPU.requested, r.Memory.requested = sumShares(r.Shares)
	r.Pods = len(n.Pods)
	r.PricePerHour, r.Priced = snap.NodePrice(r.Name)
	r.Estimated = ic.estimates(r.Capacity)
	return r
}

// claimRow is the row of a NodeClaim the plan launches.
func claimRow(c *scheduling.NodeClaim, name, status string, ic *instanceCatalog) nodeRow {
	// Requests count a pod per pod and per DaemonSet pod the claim will run.
	r := nodeRow{Name: name, Status: status, NodePool: c.NodePool, Pods: max(len(c.Pods), int(c.Requests.Pods().Value())), PodNames: podNames(c.Pods), New: true}
	r.CPU.requested, r.Memory.requested = c.Requests.Cpu().MilliValue(), c.Requests.Memory().Value()
	r.Shares = sharesOf(c.Pods, true)
	podsCPU, podsMemory := sumShares(r.Shares)
	ds := podShare{Pod: daemonSetShare, CPU: r.CPU.requested - podsCPU, Memory: r.Memory.requested - podsMemory}
	if ds.CPU > 0 || ds.Memory > 0 {
		r.Shares = append([]podShare{ds}, r.Shares...)
	}
	if c.InstanceType != nil {
		alloc := c.InstanceType.Allocatable()
		r.InstanceType = c.InstanceType.Name
		r.CPU.allocatable, r.Memory.allocatable = alloc.Cpu().MilliValue(), alloc.Memory().Value()
	}
	if c.Offering != nil {
		r.Zone, r.Capacity, r.PricePerHour, r.Priced = c.Offering.Zone(), c.Offering.CapacityType(), c.Offering.Price, true
		r.Estimated = ic.estimated(c.Offering)
	}
	return r
}

// place adds the pending pods a plan places on an existing node to its row (counted after
// the plan, not now).
func (r *nodeRow) place(pods []*corev1.Pod) {
	if len(pods) == 0 {
		return
	}
	shares := sharesOf(pods, true)
	r.placedCPU, r.placedMemory = sumShares(shares)
	r.placedPods = len(pods)
	r.CPU.requested += r.placedCPU
	r.Memory.requested += r.placedMemory
	r.Pods += len(pods)
	r.PodNames = podNames(pods)
	r.Shares = append(r.Shares, shares...)
}

// planRows are the rows of a plan: every node of the snapshot (with the pending pods the
// plan places there), then the new NodeClaims.
func planRows(snap *cluster.Snapshot, res *scheduling.Result, ic *instanceCatalog) []nodeRow {
	placed := map[string][]*corev1.Pod{}
	for _, b := range res.Bindings {
		placed[b.To] = append(placed[b.To], b.Pod)
	}
	var rows []nodeRow
	for _, n := range nodesByName(snap) {
		r := existingRow(snap, n, ic)
		r.place(placed[r.Name])
		rows = append(rows, r)
	}
	for i, c := range res.NewNodeClaims {
		rows = append(rows, claimRow(c, planClaimNames(res)[i], "new", ic))
	}
	return rows
}

// disruptRows are the rows of a disrupt result: every node of the snapshot with what happens
// to it (and the pending pods the provisioner places there), then the provisioned NodeClaims
// and each command's replacements.
func disruptRows(snap *cluster.Snapshot, res *disruption.Result, ic *instanceCatalog) []nodeRow {
	status := map[string]string{}
	for _, b := range res.Blocked {
		status[b.Node] = "kept"
	}
	for _, d := range res.Drains {
		if d.Command == 0 {
			status[d.Node] = "deleting"
		}
	}
	for i, c := range res.Commands {
		for _, n := range c.Candidates {
			status[n] = fmt.Sprintf("command %d: %s", i+1, c.Method)
		}
	}
	placed := map[string][]*corev1.Pod{}
	for _, m := range res.PendingPods {
		if m.To != "" {
			placed[m.To] = append(placed[m.To], m.Pod)
		}
	}
	var rows []nodeRow
	for _, n := range nodesByName(snap) {
		r := existingRow(snap, n, ic)
		if s, ok := status[r.Name]; ok {
			r.Status = s
		}
		r.place(placed[r.Name])
		r.Removed = r.Status == "deleting" || strings.HasPrefix(r.Status, "command ")
		rows = append(rows, r)
	}
	for i, c := range res.Provisioned {
		rows = append(rows, claimRow(c, disruption.ProvisionedName(i+1), "provisioned", ic))
	}
	for i, cmd := range res.Commands {
		for j, c := range cmd.Replacements {
			rows = append(rows, claimRow(c, disruption.ReplacementName(i+1, j+1), fmt.Sprintf("replacement (command %d)", i+1), ic))
		}
	}
	return rows
}

// nodesByName are the snapshot's nodes sorted by name: the table does not depend on the order
// of the input.
func nodesByName(snap *cluster.Snapshot) []*cluster.Node {
	nodes := slices.Clone(snap.Nodes())
	slices.SortStableFunc(nodes, func(a, b *cluster.Node) int { return strings.Compare(a.Name(), b.Name()) })
	return nodes
}

// writeNodeTable prints the rows and the totals; wide adds the pods each row's node gets.
func writeNodeTable(w io.Writer, rows []nodeRow, sum costSummary, afterLabel string, wide bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "NODE\tSTATUS\tNODEPOOL\tINSTANCE TYPE\tZONE\tCAPACITY\tCPU REQ/ALLOC\tMEMORY REQ/ALLOC\tPODS\t$/HOUR"
	if wide {
		head += "\tPODS PLACED"
	}
	fmt.Fprintln(tw, head)
	for _, r := range rows {
		line := fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s", r.Name, r.Status, orDash(r.NodePool), orDash(r.InstanceType), orDash(r.Zone), orDash(r.Capacity),
			usageText(r.CPU, cpuText), usageText(r.Memory, bytesText), r.Pods, priceText(r.PricePerHour, r.Priced, r.Estimated))
		if wide {
			line += "\t" + orDash(strings.Join(r.PodNames, ","))
		}
		fmt.Fprintln(tw, line)
	}
	total := func(label string, t totals) {
		fmt.Fprintf(tw, "%s\t%s\t\t\t\t\t%s\t%s\t%d\t%s\n", label, plural(t.Nodes, "node"), usageText(t.CPU, cpuText), usageText(t.Memory, bytesText), t.Pods,
			priceText(t.PricePerHour, true, t.Estimated))
	}
	total("NOW", sum.Now)
	total(afterLabel, sum.After)
	if sum.LowerBound != nil {
		fmt.Fprintf(tw, "LOWER BOUND\t\t\t\t\t\t\t\t\t%s\n", priceText(*sum.LowerBound, true, false))
	}
	return tw.Flush()
}

// usageText is "requested/allocatable (percent)".
func usageText(u usage, unit func(int64) string) string {
	if u.allocatable <= 0 {
		if u.requested == 0 {
			return "-"
		}
		return unit(u.requested) + "/-"
	}
	return fmt.Sprintf("%s/%s (%d%%)", unit(u.requested), unit(u.allocatable), (u.requested*100+u.allocatable/2)/u.allocatable)
}

func cpuText(milli int64) string { return trimFloat(float64(milli) / 1000) }

// bytesText is a memory amount in the largest binary unit that keeps one decimal readable.
func bytesText(b int64) string {
	const ki = 1024
	units := []string{"", "Ki", "Mi", "Gi", "Ti", "Pi"}
	f, u := float64(b), 0
	for f >= ki && u < len(units)-1 {
		f /= ki
		u++
	}
	return trimFloat(float64(int64(f*10+0.5))/10) + units[u]
}

// trimFloat prints at most two decimals and no trailing zeros.
func trimFloat(f float64) string {
	return strconv.FormatFloat(float64(int64(f*100+0.5))/100, 'f', -1, 64)
}

// priceText is a $/hour with the estimate mark, "-" when unknown.
func priceText(p float64, known, estimated bool) string {
	if !known {
		return "-"
	}
	return fmt.Sprintf("%.4f%s", p, estimateMark(estimated))
}

// plural is "1 node", "2 nodes".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
