package manifest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func podWithSpec(spec string) string {
	return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: " + spec + "\n"
}

// TestSpecsTheAPIServerRejectsAreErrors: invalid pod specs are bad input naming file, object
// and field, not pods planned as written.
func TestSpecsTheAPIServerRejectsAreErrors(t *testing.T) {
	const c = "{name: c, image: x}"
	spread := func(s string) string {
		return podWithSpec("{containers: [" + c + "], topologySpreadConstraints: [" + s + "]}")
	}
	for name, tc := range map[string]struct{ doc, want string }{
		"maxSkew 0": {spread("{maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}"),
			`Pod "default/p": spec.topologySpreadConstraints[0].maxSkew: 0: must be greater than zero`},
		"negative maxSkew": {spread("{maxSkew: -1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}"), "spec.topologySpreadConstraints[0].maxSkew"},
		"minDomains 0": {spread("{maxSkew: 1, minDomains: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}"),
			"spec.topologySpreadConstraints[0].minDomains: 0: must be greater than zero"},
		"unknown whenUnsatisfiable": {spread("{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: Sometimes}"),
			`spec.topologySpreadConstraints[0].whenUnsatisfiable: "Sometimes": want DoNotSchedule or ScheduleAnyway`},
		"empty topologyKey": {spread("{maxSkew: 1, topologyKey: '', whenUnsatisfiable: DoNotSchedule}"),
			"spec.topologySpreadConstraints[0].topologyKey: is required"},
		"unknown toleration operator": {podWithSpec("{containers: [" + c + "], tolerations: [{key: k, operator: Matches, value: v}]}"),
			`spec.tolerations[0].operator: "Matches": want Equal or Exists`},
		"empty affinity topologyKey": {podWithSpec("{containers: [" + c + "], affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {}, topologyKey: ''}]}}}"),
			"spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: is required"},
		"resource name memroy": {podWithSpec("{containers: [{name: c, image: x, resources: {requests: {memroy: 1Gi}}}]}"),
			`spec.containers[0].resources.requests: "memroy" is not a resource name`},
		"spec null": {podWithSpec("null"), `Pod "default/p": spec: must not be null`},
		"template spec null": {"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: null}}\n",
			`Deployment "default/d": spec.template.spec: must not be null`},
		"name not DNS-1123": {"apiVersion: v1\nkind: Pod\nmetadata: {name: Web_1}\nspec: {containers: [" + c + "]}\n",
			`Pod "default/Web_1": metadata.name: "Web_1" is not a valid name`},
		"name too long": {"apiVersion: v1\nkind: Pod\nmetadata: {name: " + longName(254) + "}\nspec: {containers: [" + c + "]}\n",
			"metadata.name: \"" + longName(254) + "\" is not a valid name: must be no more than 253 characters"},
		"namespace too long": {"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: " + longName(64) + "}\nspec: {containers: [" + c + "]}\n",
			"metadata.namespace: \"" + longName(64) + "\" is not a valid namespace: must be no more than 63 characters"},
		// The API server's claim validation requires an access mode and a storage request; a
		// StatefulSet is accepted with such a template, but never creates its pods.
		"StatefulSet template without storage request": {statefulSetWithClaim("{accessModes: [ReadWriteOnce], storageClassName: ebs}"),
			`StatefulSet "default/db": spec.volumeClaimTemplates[0].spec.resources.requests.storage: is required (the API server refuses the PersistentVolumeClaims made from this template, so the StatefulSet never creates a pod)`},
		"StatefulSet template without access mode": {statefulSetWithClaim("{resources: {requests: {storage: 1Gi}}}"),
			"spec.volumeClaimTemplates[0].spec.accessModes: at least one access mode is required"},
		"StatefulSet template with zero storage": {statefulSetWithClaim("{accessModes: [ReadWriteOnce], resources: {requests: {storage: '0'}}}"),
			"spec.volumeClaimTemplates[0].spec.resources.requests.storage: 0: must be greater than zero"},
		"PersistentVolumeClaim without storage request": {"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec: {accessModes: [ReadWriteOnce]}\n",
			`PersistentVolumeClaim "default/data": spec.resources.requests.storage: is required`},
		"ephemeral volume without storage request": {podWithSpec("{containers: [" + c + "], volumes: [{name: scratch, ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce]}}}}]}"),
			"spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources.requests.storage: is required"},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Contains(t, parseErr(t, tc.doc), "test.yaml: document 1 (line 1): ")
			assert.Contains(t, parseErr(t, tc.doc), tc.want)
		})
	}
	// What the API server accepts still reads.
	parse(t, spread("{maxSkew: 1, minDomains: 2, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}"))
	parse(t, podWithSpec("{containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 1, hugepages-2Mi: 1Gi}}}]}"))
	parse(t, statefulSetWithClaim("{accessModes: [ReadWriteOnce], resources: {requests: {storage: 10Gi}}}"))
}

// statefulSetWithClaim is a StatefulSet "db" with one volumeClaimTemplate of this spec.
func statefulSetWithClaim(spec string) string {
	return "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec: {serviceName: db, selector: {matchLabels: {a: b}}, " +
		"template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: x}]}}, volumeClaimTemplates: [{metadata: {name: data}, spec: " + spec + "}]}\n"
}

func longName(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a'
	}
	return string(b)
}
