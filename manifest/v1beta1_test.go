package manifest

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

const v1beta1Pool = `apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata: {name: team-1}
spec:
  template:
    metadata: {labels: {team: one}}
    spec:
      requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]
      nodeClassRef: {name: default}
`

func TestV1beta1NodePoolsAreConverted(t *testing.T) {
	cases := []struct {
		name string
		// spec is appended to the NodePool's spec (template, disruption), at two spaces.
		extra, nodeClassRef string
		check               func(t *testing.T, np *v1.NodePool)
	}{
		{name: "defaults", check: func(t *testing.T, np *v1.NodePool) {
			assert.Equal(t, v1.ConsolidationPolicyWhenEmptyOrUnderutilized, np.Spec.Disruption.ConsolidationPolicy)
			assert.Equal(t, "0s", np.Spec.Disruption.ConsolidateAfter.String())
			assert.Equal(t, "720h", np.Spec.Template.Spec.ExpireAfter.String())
			assert.Equal(t, []v1.Budget{{Nodes: "10%"}}, np.Spec.Disruption.Budgets)
			assert.Equal(t, &v1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}, np.Spec.Template.Spec.NodeClassRef)
			assert.Equal(t, "one", np.Spec.Template.ObjectMeta.Labels["team"])
			assert.Equal(t, map[string]string{v1.NodeClassReferenceAnnotationKey: `{"name":"default"}`}, np.Annotations,
				"the nodeClassRef as written, as Karpenter 1.0's webhook keeps it")
		}},
		{name: "WhenUnderutilized and expireAfter", extra: "  disruption: {consolidationPolicy: WhenUnderutilized, expireAfter: 168h, budgets: [{nodes: \"2\"}, {nodes: \"0\", schedule: \"0 9 * * 1-5\", duration: 8h}]}\n",
			check: func(t *testing.T, np *v1.NodePool) {
				assert.Equal(t, v1.ConsolidationPolicyWhenEmptyOrUnderutilized, np.Spec.Disruption.ConsolidationPolicy)
				assert.Equal(t, "0s", np.Spec.Disruption.ConsolidateAfter.String())
				assert.Equal(t, "168h", np.Spec.Template.Spec.ExpireAfter.String())
				require.Len(t, np.Spec.Disruption.Budgets, 2)
				assert.Equal(t, "0 9 * * 1-5", *np.Spec.Disruption.Budgets[1].Schedule)
			}},
		{name: "WhenEmpty keeps consolidateAfter; Never stays Never", extra: "  disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 30s, expireAfter: Never}\n",
			check: func(t *testing.T, np *v1.NodePool) {
				assert.Equal(t, v1.ConsolidationPolicyWhenEmpty, np.Spec.Disruption.ConsolidationPolicy)
				assert.Equal(t, "30s", np.Spec.Disruption.ConsolidateAfter.String())
				assert.True(t, np.Spec.Template.Spec.ExpireAfter.IsNever())
			}},
		{name: "apiVersion and kind of the NodeClass", nodeClassRef: "{apiVersion: karpenter.k8s.aws/v1beta1, kind: EC2NodeClass, name: default}",
			check: func(t *testing.T, np *v1.NodePool) {
				assert.Equal(t, &v1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}, np.Spec.Template.Spec.NodeClassRef)
			}},
		{name: "template resources are dropped", nodeClassRef: "{name: default}\n      resources: {requests: {cpu: \"1\"}}",
			check: func(t *testing.T, np *v1.NodePool) {
				assert.Equal(t, "default", np.Spec.Template.Spec.NodeClassRef.Name)
			}},
		{name: "weight and limits", extra: "  weight: 50\n  limits: {cpu: \"100\"}\n",
			check: func(t *testing.T, np *v1.NodePool) {
				assert.Equal(t, int32(50), *np.Spec.Weight)
				cpu := np.Spec.Limits["cpu"]
				assert.Equal(t, "100", cpu.String())
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := v1beta1Pool + tc.extra
			if tc.nodeClassRef != "" {
				doc = replaceOnce(doc, "nodeClassRef: {name: default}", "nodeClassRef: "+tc.nodeClassRef)
			}
			s := parse(t, doc)
			require.Len(t, s.NodePools, 1)
			np := s.NodePools[0]
			assert.Equal(t, v1.APIVersion, np.APIVersion)
			tc.check(t, np)
			require.Len(t, s.Warnings, 1)
			assert.Equal(t, `NodePool "team-1"`, s.Warnings[0].Object, "the warning names the object")
			assert.Equal(t, 1, s.Warnings[0].Source.Document)
		})
	}
}

func TestV1beta1KubeletMovesToTheAnnotation(t *testing.T) {
	doc := replaceOnce(v1beta1Pool, "      nodeClassRef:", "      kubelet: {maxPods: 20, systemReserved: {cpu: 100m, memory: 100Mi}, evictionHard: {memory.available: 5%}, cpuCFSQuota: false}\n      nodeClassRef:")
	s := parse(t, doc)
	np := s.NodePools[0]
	raw := np.Annotations[v1.KubeletCompatibilityAnnotationKey]
	require.NotEmpty(t, raw)
	assert.Equal(t, `{"maxPods":20,"systemReserved":{"cpu":"100m","memory":"100Mi"},"evictionHard":{"memory.available":"5%"},"cpuCFSQuota":false}`, raw,
		"Karpenter's field order, as its webhook wrote it")
	var k map[string]any
	require.NoError(t, json.Unmarshal([]byte(raw), &k))
	assert.Contains(t, s.Warnings[0].Message, v1.KubeletCompatibilityAnnotationKey)
}

func TestV1beta1NodePoolErrors(t *testing.T) {
	cases := map[string]struct{ doc, field string }{
		"unknown field":                  {replaceOnce(v1beta1Pool, "nodeClassRef: {name: default}", "nodeClassRef: {name: default, group: x}"), "spec.template.spec.nodeClassRef.group"},
		"no nodeClassRef":                {replaceOnce(v1beta1Pool, "      nodeClassRef: {name: default}\n", ""), "spec.template.spec.nodeClassRef.name"},
		"WhenEmpty without an interval":  {v1beta1Pool + "  disruption: {consolidationPolicy: WhenEmpty}\n", "spec.disruption.consolidateAfter"},
		"WhenUnderutilized with one":     {v1beta1Pool + "  disruption: {consolidationPolicy: WhenUnderutilized, consolidateAfter: 1m}\n", "spec.disruption.consolidateAfter"},
		"v1's policy name":               {v1beta1Pool + "  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized}\n", "spec.disruption.consolidationPolicy"},
		"v1 validation still applies":    {replaceOnce(v1beta1Pool, "operator: In", "operator: Foo"), "spec.template.spec.requirements[0].operator"},
		"a kubelet field v1beta1 lacked": {replaceOnce(v1beta1Pool, "      nodeClassRef:", "      kubelet: {maxPodz: 3}\n      nodeClassRef:"), "spec.template.spec.kubelet.maxPodz"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(tc.doc), "old.yaml")
			require.Error(t, err)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, `NodePool "team-1"`, e.Object)
			assert.Equal(t, tc.field, e.Field)
		})
	}
}

func TestV1beta1NodePoolList(t *testing.T) {
	s := parse(t, "apiVersion: karpenter.sh/v1beta1\nkind: NodePoolList\nitems:\n- metadata: {name: a}\n  spec: {template: {spec: {nodeClassRef: {name: default}}}}\n")
	require.Len(t, s.NodePools, 1)
	assert.Equal(t, "a", s.NodePools[0].Name)
	require.Len(t, s.Warnings, 1)
	assert.Equal(t, "items[0]", s.Warnings[0].Source.Item)
}

func TestV1beta1NodeClaimsAreConverted(t *testing.T) {
	const claim = `apiVersion: karpenter.sh/v1beta1
kind: NodeClaim
metadata:
  name: team-1-x8k2q
  labels: {karpenter.sh/nodepool: team-1, node.kubernetes.io/instance-type: m5.large}
spec:
  requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}]
  resources: {requests: {cpu: 500m}}
  kubelet: {maxPods: 20}
  nodeClassRef: {name: default}
status:
  nodeName: ip-10-0-1-1.ec2.internal
  providerID: aws:///us-east-1a/i-0abc
  allocatable: {cpu: 1930m, memory: 7Gi, pods: "20"}
  conditions:
  - {type: Initialized, status: "True", severity: "", lastTransitionTime: "2026-01-01T00:05:00Z"}
`
	pool := replaceOnce(v1beta1Pool, "spec:\n  template:", "spec:\n  disruption: {expireAfter: 336h}\n  template:")
	cases := map[string]struct {
		docs   []string
		expire string
	}{
		"expireAfter of its NodePool":            {[]string{pool, claim}, "336h"},
		"NodePool after the claim":               {[]string{claim, pool}, "336h"},
		"NodePool not in the input: CRD default": {[]string{claim}, "720h"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			doc := ""
			for _, d := range tc.docs {
				doc += "---\n" + d
			}
			s := parse(t, doc)
			require.Len(t, s.NodeClaims, 1)
			nc := s.NodeClaims[0]
			assert.Equal(t, tc.expire, nc.Spec.ExpireAfter.String())
			assert.Equal(t, &v1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}, nc.Spec.NodeClassRef)
			assert.Equal(t, `{"maxPods":20}`, nc.Annotations[v1.KubeletCompatibilityAnnotationKey])
			assert.Equal(t, `{"name":"default"}`, nc.Annotations[v1.NodeClassReferenceAnnotationKey])
			assert.Equal(t, "ip-10-0-1-1.ec2.internal", nc.Status.NodeName)
			require.Len(t, nc.Status.Conditions, 1)
			assert.Equal(t, "Initialized", nc.Status.Conditions[0].Type)
			var claimWarnings int
			for _, w := range s.Warnings {
				if w.Object == `NodeClaim "team-1-x8k2q"` {
					claimWarnings++
				}
			}
			assert.Equal(t, 1, claimWarnings)
		})
	}
}

func TestFormerGroupOfAKindIsAnError(t *testing.T) {
	for _, kind := range []string{"Deployment", "DaemonSet", "ReplicaSet"} {
		_, err := Parse([]byte("apiVersion: extensions/v1beta1\nkind: "+kind+"\nmetadata: {name: web}\nspec: {}\n"), "old.yaml")
		var e *Error
		require.ErrorAs(t, err, &e, kind)
		assert.Equal(t, kind+` "default/web"`, e.Object)
	}
}

func replaceOnce(s, old, new string) string {
	i := strings.Index(s, old)
	if i < 0 {
		panic("replaceOnce: " + old + " not in the document")
	}
	return s[:i] + new + s[i+len(old):]
}

// TestV1beta1KubeletErrorsNameTheFieldWritten: a v1beta1 kubelet block's bad values are errors
// naming the file and the field the author wrote (spec.template.spec.kubelet.maxPods), not the
// annotation the conversion moves the block into; a v1 NodePool whose own annotation is bad
// is an error naming the file and the annotation when it is read, not when it is planned.
func TestV1beta1KubeletErrorsNameTheFieldWritten(t *testing.T) {
	kubelet := func(k string) string {
		return replaceOnce(v1beta1Pool, "      nodeClassRef:", "      kubelet: "+k+"\n      nodeClassRef:")
	}
	const claim = "apiVersion: karpenter.sh/v1beta1\nkind: NodeClaim\nmetadata: {name: c}\nspec: {nodeClassRef: {name: default}, kubelet: %s}\n"
	const annotated = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: team-1, annotations: {compatibility.karpenter.sh/v1beta1-kubelet-conversion: '%s'}}\nspec: {template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}}}\n"
	annotation := "metadata.annotations[compatibility.karpenter.sh/v1beta1-kubelet-conversion]"
	for name, c := range map[string]struct{ doc, object, field string }{
		"maxPods -3":               {kubelet("{maxPods: -3}"), `NodePool "team-1"`, "spec.template.spec.kubelet.maxPods"},
		"kubeReserved 1e30":        {kubelet("{kubeReserved: {cpu: '1e30'}}"), `NodePool "team-1"`, "spec.template.spec.kubelet.kubeReserved[cpu]"},
		"clusterDNS not an IP":     {kubelet("{clusterDNS: [nope]}"), `NodePool "team-1"`, "spec.template.spec.kubelet.clusterDNS[0]"},
		"a NodeClaim's kubelet":    {strings.Replace(claim, "%s", "{maxPods: -1}", 1), `NodeClaim "c"`, "spec.kubelet.maxPods"},
		"a v1 NodePool's value":    {strings.Replace(annotated, "%s", `{"maxPods":-1}`, 1), `NodePool "team-1"`, annotation + ".maxPods"},
		"a v1 NodePool's bad JSON": {strings.Replace(annotated, "%s", `{"maxpods":8}`, 1), `NodePool "team-1"`, annotation},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(c.doc), "old.yaml")
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, [3]string{"old.yaml", c.object, c.field}, [3]string{e.Source.File, e.Object, e.Field})
		})
	}
}

// TestIntegersOutOfRangeAreRangeErrors: a whole number too large for its field (maxPods
// 99999999999999 in an int32) is a *RangeError, not "expected an integer, got number".
func TestIntegersOutOfRangeAreRangeErrors(t *testing.T) {
	for name, c := range map[string]struct{ doc, field string }{
		"maxPods":  {strings.Replace(nodeClassV1, "maxPods: 8", "maxPods: 99999999999999", 1), "spec.kubelet.maxPods"},
		"priority": {"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {priority: -1e12, containers: [{name: c, image: i}]}\n", "spec.priority"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(c.doc), "in.yaml")
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, c.field, e.Field)
			var re *RangeError
			require.ErrorAs(t, err, &re, "%v", err)
			assert.Equal(t, [2]int64{-1 << 31, 1<<31 - 1}, [2]int64{re.Min, re.Max})
		})
	}
	_, err := Parse([]byte(strings.Replace(nodeClassV1, "maxPods: 8", "maxPods: 1.5", 1)), "in.yaml")
	var re *RangeError
	assert.False(t, errors.As(err, &re), "a fraction is no range error: %v", err)
}
