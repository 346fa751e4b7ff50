package manifest_test

import (
	"errors"
	"fmt"

	"github.com/nodeplan/nodeplan/aws/catalog"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/manifest"
)

// Load reads files and folders of manifests into typed objects; Snapshot builds what the
// engines read, with the instance types each NodePool may launch (here the embedded EC2
// catalog for every NodePool).
func ExampleLoad() {
	set, err := manifest.Load("testdata/scenarios/zone-spread.yaml")
	if err != nil {
		panic(err)
	}
	fmt.Println(len(set.NodePools), "NodePool,", len(set.Pods), "pods, first", set.Pods[0].Name, "from", set.SourceOf("Pod", "default", set.Pods[0].Name))

	ec2, err := catalog.EC2()
	if err != nil {
		panic(err)
	}
	types := map[string]cloudprovider.InstanceTypes{}
	for _, np := range set.NodePools {
		types[np.Name] = ec2
	}
	snap, err := set.Snapshot(types)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(snap.Pending()), "pending pods,", len(snap.Nodes()), "nodes")
	// Output:
	// 1 NodePool, 6 pods, first spread-0 from testdata/scenarios/zone-spread.yaml: document 2 (line 23)
	// 6 pending pods, 0 nodes
}

// Parse reads one file's bytes: workloads expand into the pods their controllers would
// create, kinds nodeplan does not plan with are counted, not refused.
func ExampleParse() {
	set, err := manifest.Parse([]byte(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: web:1, resources: {requests: {cpu: 500m, memory: 1Gi}}}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
`), "shop.yaml")
	if err != nil {
		panic(err)
	}
	for _, p := range set.Pods {
		fmt.Println(p.Namespace+"/"+p.Name, p.Spec.Containers[0].Resources.Requests.Cpu())
	}
	fmt.Println("skipped:", set.Skipped)
	// Output:
	// shop/web-0 500m
	// shop/web-1 500m
	// skipped: map[Service:1]
}

// A value the API server would refuse is an *Error naming the file, the document, the
// object and the field.
func ExampleParse_error() {
	_, err := manifest.Parse([]byte(`
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: web, image: web:1, resources: {requests: {cpu: -1}}}]
`), "pods.yaml")
	var me *manifest.Error
	if errors.As(err, &me) {
		fmt.Println(me.Source.File, me.Source.Document, me.Object, me.Field)
	}
	// Output:
	// pods.yaml 1 Pod "default/web" spec.containers[0].resources.requests.cpu
}

// LoadLimited bounds what a run reads: past a limit it stops with a *LimitError naming it.
func ExampleLoadLimited() {
	_, err := manifest.LoadLimited(manifest.Limits{MaxPods: 5}, "testdata/scenarios/zone-spread.yaml")
	var le *manifest.LimitError
	if errors.As(err, &le) {
		fmt.Println(le.Limit, le.Max, le.Kind, errors.Is(err, manifest.ErrTooLarge))
	}
	// Output:
	// MaxPods 5 Pod true
}
