package v1_test

import (
	"fmt"
	"time"

	"sigs.k8s.io/yaml"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// Validate reports every problem at once, each naming the NodePool and the field.
func ExampleNodePool_Validate() {
	manifest := []byte(`
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  weight: 0
  template:
    spec:
      requirements:
      - key: kubernetes.io/arch
        operator: Foo
        values: [amd64]
      - key: karpenter.sh/capacity-type
        operator: In
        values: [spot, on-demand]
        minValues: 3
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
  disruption:
    budgets:
    - nodes: 20%
      schedule: "0 9 * * mon-fri"
`)
	var np v1.NodePool
	if err := yaml.UnmarshalStrict(manifest, &np); err != nil {
		fmt.Println(err)
		return
	}
	np.SetDefaults()
	fmt.Println(np.Validate())
	// Output:
	// NodePool "default": spec.template.spec.requirements[0].operator: Unsupported value: "Foo": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"
	// NodePool "default": spec.template.spec.requirements[1].minValues: Invalid value: 3: requirements with 'minValues' must have at least that many values specified in the 'values' field (has 2)
	// NodePool "default": spec.disruption.budgets[0]: Invalid value: "schedule \"0 9 * * mon-fri\" without duration": 'schedule' must be set with 'duration'
	// NodePool "default": spec.weight: Invalid value: 0: must be between 1 and 100
}

// AllowedDisruptions evaluates the budgets at a given time.
func ExampleNodePool_AllowedDisruptions() {
	var np v1.NodePool
	_ = yaml.UnmarshalStrict([]byte(`
metadata: {name: default}
spec:
  disruption:
    budgets:
    - nodes: 10%
    - nodes: "0"
      reasons: [Drifted]
      schedule: "0 9 * * mon-fri"
      duration: 8h
`), &np)
	monday := mustTime("2026-03-02T10:00:00Z")
	for _, reason := range []v1.DisruptionReason{v1.DisruptionReasonDrifted, v1.DisruptionReasonEmpty} {
		n, err := np.AllowedDisruptions(monday, 25, reason)
		fmt.Println(reason, n, err)
	}
	// Output:
	// Drifted 0 <nil>
	// Empty 3 <nil>
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}
