package verify

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// volumeTopology checks the pod's PersistentVolumeClaims: a bound volume's node affinity
// (without hostname terms for local and hostPath volumes, as Karpenter drops them) and an
// unbound claim's StorageClass allowedTopologies must admit the node. Claims, volumes or
// classes the input lacks are not checked.
func (w *world) volumeTopology(l *location, p *corev1.Pod) []Violation {
	var out []Violation
	for _, vol := range p.Spec.Volumes {
		claim := ""
		switch {
		case vol.PersistentVolumeClaim != nil:
			claim = vol.PersistentVolumeClaim.ClaimName
		case vol.Ephemeral != nil:
			claim = p.Name + "-" + vol.Name
		default:
			continue
		}
		pvc := w.findPVC(p.Namespace, claim)
		if pvc == nil {
			continue
		}
		if ok := w.claimAdmits(pvc, l); !ok {
			v := l.violation(VolumeTopology)
			v.Pod, v.Key = key(p), p.Namespace+"/"+claim
			out = append(out, v)
		}
	}
	return out
}

func (w *world) findPVC(ns, name string) *corev1.PersistentVolumeClaim {
	for _, c := range w.snap.PersistentVolumeClaims() {
		if c != nil && c.Namespace == ns && c.Name == name {
			return c
		}
	}
	return nil
}

func (w *world) claimAdmits(pvc *corev1.PersistentVolumeClaim, l *location) bool {
	if pvc.Spec.VolumeName != "" {
		for _, pv := range w.snap.PersistentVolumes() {
			if pv == nil || pv.Name != pvc.Spec.VolumeName {
				continue
			}
			if pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
				return true
			}
			sel := pv.Spec.NodeAffinity.Required
			if pv.Spec.Local != nil || pv.Spec.HostPath != nil {
				if sel = withoutHostname(sel); sel == nil {
					return true
				}
			}
			ok, err := nodeaffinity.NewLazyErrorNodeSelector(sel).Match(l.k8s)
			return ok && err == nil
		}
		return true
	}
	if pvc.Spec.StorageClassName == nil {
		return true
	}
	for _, sc := range w.snap.StorageClasses() {
		if sc == nil || sc.Name != *pvc.Spec.StorageClassName {
			continue
		}
		if len(sc.AllowedTopologies) == 0 {
			return true
		}
		for _, term := range sc.AllowedTopologies {
			if termAdmits(term, l.labels) {
				return true
			}
		}
		return false
	}
	return true
}

func termAdmits(term corev1.TopologySelectorTerm, lbls map[string]string) bool {
	for _, e := range term.MatchLabelExpressions {
		v, ok := lbls[e.Key]
		if !ok || !slices.Contains(e.Values, v) {
			return false
		}
	}
	return true
}

// withoutHostname drops hostname expressions; nil when a term is left empty (it then
// admits every node).
func withoutHostname(sel *corev1.NodeSelector) *corev1.NodeSelector {
	out := &corev1.NodeSelector{}
	for _, t := range sel.NodeSelectorTerms {
		var nt corev1.NodeSelectorTerm
		for _, e := range t.MatchExpressions {
			if e.Key != v1.LabelHostname {
				nt.MatchExpressions = append(nt.MatchExpressions, e)
			}
		}
		nt.MatchFields = t.MatchFields
		if len(nt.MatchExpressions) == 0 && len(nt.MatchFields) == 0 {
			return nil
		}
		out.NodeSelectorTerms = append(out.NodeSelectorTerms, nt)
	}
	return out
}
