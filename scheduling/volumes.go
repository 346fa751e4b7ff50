package scheduling

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/requirements"
)

// volumeUse is one persistent volume claim a pod mounts, by CSI driver.
type volumeUse struct {
	driver string
	claim  string // namespace/name: the same claim mounted by many pods counts once
}

// inTreeDrivers maps in-tree volume plugins to the CSI drivers they migrated to.
var inTreeDrivers = map[string]string{
	"kubernetes.io/aws-ebs":        "ebs.csi.aws.com",
	"kubernetes.io/gce-pd":         "pd.csi.storage.gke.io",
	"kubernetes.io/azure-disk":     "disk.csi.azure.com",
	"kubernetes.io/cinder":         "cinder.csi.openstack.org",
	"kubernetes.io/vsphere-volume": "csi.vsphere.vmware.com",
}

// volumeTopologyKeys maps CSI drivers' own zone keys to the well-known zone label.
var volumeTopologyKeys = map[string]string{
	"topology.ebs.csi.aws.com/zone":          v1.LabelTopologyZone,
	"topology.gke.io/zone":                   v1.LabelTopologyZone,
	"topology.disk.csi.azure.com/zone":       v1.LabelTopologyZone,
	"topology.cinder.csi.openstack.org/zone": v1.LabelTopologyZone,
}

// volumeIndex looks up the storage objects of the input.
type volumeIndex struct {
	pvcs          map[string]*corev1.PersistentVolumeClaim // namespace/name
	pvs           map[string]*corev1.PersistentVolume
	classes       map[string]*storagev1.StorageClass
	defaultClass  *storagev1.StorageClass
	csiNodeLimits map[string]map[string]int // node -> driver -> max volumes
}

func newVolumeIndex(snap *cluster.Snapshot) *volumeIndex {
	vi := &volumeIndex{
		pvcs:          map[string]*corev1.PersistentVolumeClaim{},
		pvs:           map[string]*corev1.PersistentVolume{},
		classes:       map[string]*storagev1.StorageClass{},
		csiNodeLimits: map[string]map[string]int{},
	}
	for _, c := range snap.PersistentVolumeClaims() {
		if c == nil {
			continue
		}
		vi.pvcs[c.Namespace+"/"+c.Name] = c
	}
	for _, pv := range snap.PersistentVolumes() {
		if pv == nil {
			continue
		}
		vi.pvs[pv.Name] = pv
	}
	var defaults []*storagev1.StorageClass
	for _, sc := range snap.StorageClasses() {
		if sc == nil {
			continue
		}
		vi.classes[sc.Name] = sc
		if sc.Annotations["storageclass.kubernetes.io/is-default-class"] == "true" {
			defaults = append(defaults, sc)
		}
	}
	// The newest default class wins, as the API server's defaulting does.
	sort.SliceStable(defaults, func(i, j int) bool {
		a, b := defaults[i].CreationTimestamp, defaults[j].CreationTimestamp
		if !a.Equal(&b) {
			return b.Before(&a)
		}
		return defaults[i].Name < defaults[j].Name
	})
	if len(defaults) > 0 {
		vi.defaultClass = defaults[0]
	}
	for _, cn := range snap.CSINodes() {
		if cn == nil {
			continue
		}
		limits := map[string]int{}
		for _, d := range cn.Spec.Drivers {
			if d.Allocatable != nil && d.Allocatable.Count != nil {
				limits[d.Name] = int(*d.Allocatable.Count)
			}
		}
		vi.csiNodeLimits[cn.Name] = limits
	}
	return vi
}

func (vi *volumeIndex) driverOfClass(name string) string {
	sc, ok := vi.classes[name]
	if !ok {
		return ""
	}
	if d, ok := inTreeDrivers[sc.Provisioner]; ok {
		return d
	}
	return sc.Provisioner
}

// podVolumes resolves a pod's persistent volumes: the topology alternatives they allow (nil:
// unconstrained) and the claims per driver. A reason is returned for a pod that cannot be
// scheduled until its volumes are in order (Karpenter ignores such pods).
func (vi *volumeIndex) podVolumes(pod *corev1.Pod) (alts []requirements.Requirements, uses []volumeUse, reason string) {
	var perVolume [][]requirements.Requirements
	for i, vol := range pod.Spec.Volumes {
		path := fmt.Sprintf("spec.volumes[%d]", i)
		var claimName string
		var template *corev1.PersistentVolumeClaimSpec
		switch {
		case vol.PersistentVolumeClaim != nil:
			claimName = vol.PersistentVolumeClaim.ClaimName
		case vol.Ephemeral != nil && vol.Ephemeral.VolumeClaimTemplate != nil:
			claimName = pod.Name + "-" + vol.Name
			template = &vol.Ephemeral.VolumeClaimTemplate.Spec
		default:
			continue
		}
		key := pod.Namespace + "/" + claimName
		pvc, ok := vi.pvcs[key]
		if !ok && template == nil {
			return nil, nil, fmt.Sprintf("%s: PersistentVolumeClaim %s not found", path, key)
		}
		var spec corev1.PersistentVolumeClaimSpec
		if ok {
			if pvc.DeletionTimestamp != nil {
				return nil, nil, fmt.Sprintf("%s: PersistentVolumeClaim %s is being deleted", path, key)
			}
			if pvc.Status.Phase == corev1.ClaimLost {
				return nil, nil, fmt.Sprintf("%s: PersistentVolumeClaim %s is Lost", path, key)
			}
			spec = pvc.Spec
		} else {
			spec = *template
		}
		if spec.VolumeName != "" {
			pv, ok := vi.pvs[spec.VolumeName]
			if !ok {
				return nil, nil, fmt.Sprintf("%s: PersistentVolume %s of claim %s not found", path, spec.VolumeName, key)
			}
			if pv.DeletionTimestamp != nil {
				return nil, nil, fmt.Sprintf("%s: PersistentVolume %s is being deleted", path, pv.Name)
			}
			if pvc != nil && pvc.Annotations["pv.kubernetes.io/bind-completed"] == "" {
				return nil, nil, fmt.Sprintf("%s: PersistentVolumeClaim %s is not bound yet (no pv.kubernetes.io/bind-completed annotation)", path, key)
			}
			if d := pvDriver(pv); d != "" {
				uses = append(uses, volumeUse{driver: d, claim: key})
			}
			terms, err := pvAlternatives(pv)
			if err != nil {
				return nil, nil, fmt.Sprintf("%s: PersistentVolume %s: %v", path, pv.Name, err)
			}
			if terms != nil {
				perVolume = append(perVolume, terms)
			}
			continue
		}
		className := ""
		if spec.StorageClassName != nil {
			className = *spec.StorageClassName
		} else if vi.defaultClass != nil {
			className = vi.defaultClass.Name
		}
		if className == "" {
			// No class and no default to give it one: only a PersistentVolume without a class
			// can bind it, which kube-scheduler waits for and Karpenter does not plan.
			return nil, nil, fmt.Sprintf("%s: PersistentVolumeClaim %s is not bound and has no StorageClass (none given, and no default StorageClass)", path, key)
		}
		sc, known := vi.classes[className]
		if !known {
			// A class the snapshot does not hold: assume it binds on first use without
			// topology restrictions (a plan from partial manifests should not stall).
			continue
		}
		if sc.VolumeBindingMode == nil || *sc.VolumeBindingMode == storagev1.VolumeBindingImmediate {
			return nil, nil, fmt.Sprintf("%s: PersistentVolumeClaim %s uses StorageClass %q with Immediate binding and is not bound yet", path, key, className)
		}
		if d := vi.driverOfClass(className); d != "" {
			uses = append(uses, volumeUse{driver: d, claim: key})
		}
		var terms []requirements.Requirements
		for j, term := range sc.AllowedTopologies {
			var exprs []corev1.NodeSelectorRequirement
			for _, e := range term.MatchLabelExpressions {
				exprs = append(exprs, corev1.NodeSelectorRequirement{Key: normalizeVolumeKey(e.Key), Operator: corev1.NodeSelectorOpIn, Values: e.Values})
			}
			r, err := requirements.FromCoreNodeSelectorRequirements(exprs...)
			if err != nil {
				return nil, nil, fmt.Sprintf("%s: StorageClass %s: allowedTopologies[%d]: %v", path, className, j, err)
			}
			terms = append(terms, r)
		}
		if terms != nil {
			perVolume = append(perVolume, terms)
		}
	}
	return crossProduct(perVolume), uses, ""
}

func normalizeVolumeKey(k string) string {
	if n, ok := volumeTopologyKeys[k]; ok {
		return n
	}
	return v1.NormalizeLabelKey(k)
}

func pvDriver(pv *corev1.PersistentVolume) string {
	switch {
	case pv.Spec.CSI != nil:
		return pv.Spec.CSI.Driver
	case pv.Spec.AWSElasticBlockStore != nil:
		return inTreeDrivers["kubernetes.io/aws-ebs"]
	case pv.Spec.GCEPersistentDisk != nil:
		return inTreeDrivers["kubernetes.io/gce-pd"]
	case pv.Spec.AzureDisk != nil:
		return inTreeDrivers["kubernetes.io/azure-disk"]
	}
	return ""
}

// pvAlternatives are a PV's node-affinity terms, one alternative each. Local and HostPath
// volumes pin a hostname, which a new node cannot have: those expressions are dropped.
func pvAlternatives(pv *corev1.PersistentVolume) ([]requirements.Requirements, error) {
	if pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
		return nil, nil
	}
	local := pv.Spec.Local != nil || pv.Spec.HostPath != nil
	var out []requirements.Requirements
	for _, term := range pv.Spec.NodeAffinity.Required.NodeSelectorTerms {
		var exprs []corev1.NodeSelectorRequirement
		for _, e := range term.MatchExpressions {
			if local && e.Key == v1.LabelHostname {
				continue
			}
			e.Key = normalizeVolumeKey(e.Key)
			exprs = append(exprs, e)
		}
		r, err := requirements.FromCoreNodeSelectorRequirements(exprs...)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// crossProduct combines per-volume alternatives, keeping the combinations whose parts
// intersect (all of them when none do, so the pod still gets a clear failure later).
func crossProduct(perVolume [][]requirements.Requirements) []requirements.Requirements {
	if len(perVolume) == 0 {
		return nil
	}
	type combo struct {
		reqs requirements.Requirements
		ok   bool
	}
	combos := []combo{{reqs: requirements.Requirements{}, ok: true}}
	for _, alts := range perVolume {
		var next []combo
		for _, c := range combos {
			for _, a := range alts {
				next = append(next, combo{reqs: c.reqs.Union(a), ok: c.ok && c.reqs.HasIntersection(a)})
			}
		}
		combos = next
	}
	var ok, all []requirements.Requirements
	for _, c := range combos {
		all = append(all, c.reqs)
		if c.ok {
			ok = append(ok, c.reqs)
		}
	}
	if len(ok) == 0 {
		return all
	}
	return ok
}
