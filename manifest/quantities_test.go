package manifest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestQuantitiesNodeplanCannotCountAreErrors: negative quantities (the API server rejects
// them) and those beyond an int64 of millicores or bytes are errors naming file, object and
// field.
func TestQuantitiesNodeplanCannotCountAreErrors(t *testing.T) {
	for name, c := range map[string]struct{ doc, want string }{
		"pod cpu 1e30": {`apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: c, image: x, resources: {requests: {cpu: 1e30}}}]}
`, `test.yaml: document 1 (line 1): Pod "default/p": spec.containers[0].resources.requests.cpu: 1e+30: more than nodeplan can count`},
		"pod cpu max int64": {`apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: c, image: x, resources: {limits: {cpu: "9223372036854775807"}}}]}
`, `Pod "default/p": spec.containers[0].resources.limits.cpu: 9223372036854775807: more than nodeplan can count`},
		"negative init container memory": {`apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {initContainers: [{name: i, image: x, resources: {requests: {memory: -1Gi}}}], containers: [{name: c, image: x}]}
`, `Pod "default/p": spec.initContainers[0].resources.requests.memory: -1Gi: must not be negative`},
		"NodePool limits 1e30": {`apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec: {limits: {cpu: 1e30}, template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}, requirements: []}}}
`, `NodePool "default": spec.limits.cpu: 1e+30: more than nodeplan can count`},
		"Deployment template": {`apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: x, resources: {requests: {memory: 1e30}}}]}
`, `Deployment "default/web": spec.template.spec.containers[0].resources.requests.memory: 1e+30`},
		"Node allocatable": {`apiVersion: v1
kind: Node
metadata: {name: node-a}
status: {allocatable: {cpu: "-2"}}
`, `Node "node-a": status.allocatable.cpu: -2: must not be negative`},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Contains(t, parseErr(t, c.doc), c.want)
		})
	}
}
