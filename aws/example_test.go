package aws_test

import (
	"context"
	"fmt"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws"
	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
	"github.com/nodeplan/nodeplan/aws/awstest"
	"github.com/nodeplan/nodeplan/aws/interruption"
)

// A host creates the provider, launches a NodeClaim and acts on the interruption messages
// of its queue. Here EC2 and SQS are awstest's local servers reached by the real SDK
// clients; a host passes ec2.NewFromConfig(cfg) and sqs.NewFromConfig(cfg) instead.
func Example() {
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)

	// A region with two real instance types in one zone, spot and on-demand.
	region := awstest.NewEC2()
	region.Now = func() time.Time { return now }
	region.OnDemandPrices = map[string]float64{}
	types, err := awstest.DataTypes()
	if err != nil {
		panic(err)
	}
	for _, t := range types {
		if t.Name != "m5.large" && t.Name != "c5.large" {
			continue
		}
		info, _ := t.InstanceTypeInfo()
		price := t.OnDemandPricePerHour["us-east-1"]
		region.InstanceTypes = append(region.InstanceTypes, info)
		region.Offerings = append(region.Offerings, awstest.Offering(t.Name, "us-east-1a"))
		region.OnDemandPrices[t.Name] = price
		region.SpotPriceHistory = append(region.SpotPriceHistory, awstest.SpotPrice(t.Name, "us-east-1a", price/3, now))
	}
	region.Subnets = []ec2types.Subnet{awstest.Subnet("subnet-a", "us-east-1a", 100)}
	ec2Server := awstest.NewEC2Server(region)
	defer ec2Server.Close()
	queue := awstest.NewSQS("")
	sqsServer := awstest.NewSQSServer(queue)
	defer sqsServer.Close()

	// The EC2NodeClass with the status the host resolved (see Provider.ResolveNodeClass).
	nodeClass := &awsv1.EC2NodeClass{}
	nodeClass.Name = "default"
	nodeClass.Status.Subnets = []awsv1.Subnet{{ID: "subnet-a", Zone: "us-east-1a"}}
	nodeClass.Status.SecurityGroups = []awsv1.SecurityGroup{{ID: "sg-nodes"}}
	nodeClass.Status.AMIs = []awsv1.AMI{{ID: "ami-amd64", Requirements: []corev1.NodeSelectorRequirement{
		{Key: v1.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{v1.ArchitectureAmd64}},
	}}}
	nodeClass.Status.InstanceProfile = "KarpenterNodeProfile"

	provider, err := aws.New(aws.Config{
		ClusterName: "demo",
		EC2:         awstest.EC2Client(awstest.Config(), ec2Server.URL),
		NodeClass: func(_ context.Context, name string) (*awsv1.EC2NodeClass, error) {
			if name != nodeClass.Name {
				return nil, nil
			}
			return nodeClass, nil
		},
		Cluster: aws.ClusterInfo{Endpoint: "https://demo.eks.example", CABundle: "Q0E=", ServiceCIDR: "10.100.0.0/16"},
		Now:     func() time.Time { return now },
	})
	if err != nil {
		panic(err)
	}
	if err := provider.Refresh(ctx, "us-east-1"); err != nil {
		panic(err)
	}

	// Launch one NodeClaim (scheduling.NodeClaimsFor builds them from a Solve).
	claim := &v1.NodeClaim{}
	claim.Name = "general-x7k2p"
	claim.Labels = map[string]string{v1.NodePoolLabelKey: "general"}
	claim.Spec.NodeClassRef = &v1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}
	claim.Spec.Requirements = []v1.NodeSelectorRequirementWithMinValues{
		{Key: v1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{v1.CapacityTypeSpot, v1.CapacityTypeOnDemand}},
		{Key: v1.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{v1.ArchitectureAmd64}},
	}
	claim.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
	launched, err := provider.Create(ctx, claim)
	if err != nil {
		panic(err)
	}
	fmt.Println("launched", launched.Name, launched.Labels[v1.LabelInstanceType], launched.Labels[v1.CapacityTypeLabelKey], launched.Labels[v1.LabelTopologyZone])

	// EC2 reclaims the spot instance: EventBridge puts the warning on the queue.
	_, id, _ := aws.ParseProviderID(launched.Status.ProviderID)
	queue.Send(`{"version":"0","id":"e1","detail-type":"EC2 Spot Instance Interruption Warning","source":"aws.ec2",` +
		`"detail":{"instance-id":"` + id + `","instance-action":"terminate"}}`)

	// The host polls the queue and acts on each event; a message is deleted once handled.
	reader := &aws.InterruptionReader{SQS: awstest.SQSClient(awstest.Config(), sqsServer.URL), QueueURL: queue.URL, WaitTimeSeconds: 1}
	res, err := reader.Poll(ctx, func(ctx context.Context, ev interruption.Event) error {
		claims, err := provider.Interrupted(ctx, ev) // also marks the spot offering unavailable
		if err != nil {
			return err // the message stays queued and comes back
		}
		for _, c := range claims {
			fmt.Println(ev.Kind, "->", ev.Action(), c.Name)
			if ev.Action() == interruption.CordonAndDrain {
				// Karpenter drains the node first; here the instance just goes.
				if err := provider.Delete(ctx, c); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("handled", res.Handled, "queued", queue.Len(), "running", len(region.Live()))
	fmt.Println("unavailable", provider.Unavailable().List())
	// Output:
	// launched general-x7k2p c5.large spot us-east-1a
	// spot_interrupted -> CordonAndDrain general-x7k2p
	// handled 1 queued 0 running 0
	// unavailable [{spot c5.large us-east-1a}]
}
