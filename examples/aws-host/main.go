// Command aws-host is a minimal host program for package aws: it wires
// config.LoadDefaultConfig, a region and a cluster name into the EC2 CloudProvider and the
// SQS interruption reader, lists the region's instance types, runs one Solve -> verify ->
// Launch round for a few pending pods, then reads one interruption message and deletes the
// interrupted NodeClaim's instance.
//
// By default (-local) it starts local EC2 (query protocol), SQS (JSON protocol), Price List
// (JSON 1.1), IAM (query protocol) and SSM (JSON 1.1) servers on 127.0.0.1, filled with the 1,355 instance types of nodeplan's data file, and points the
// real SDK clients at them with fake static credentials: nothing leaves the machine. With
// -local=false it uses the default credential chain against real AWS, and needs the IAM
// permissions listed in README.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws"
	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
	"github.com/nodeplan/nodeplan/aws/awstest"
	"github.com/nodeplan/nodeplan/aws/interruption"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

func main() {
	local := flag.Bool("local", true, "run against local EC2 and SQS servers on 127.0.0.1 (never AWS)")
	cluster := flag.String("cluster", "demo", "EKS cluster name (instances are tagged for it)")
	region := flag.String("region", "us-east-1", "AWS region")
	queue := flag.String("queue-url", "", "interruption queue URL (with -local=false)")
	data := flag.String("data", "", "instance-type data file for the local EC2 (default: nodeplan's embedded catalog data)")
	k8s := flag.String("kubernetes-version", "1.33", "cluster Kubernetes version (picks the al2023 AMIs)")
	flag.Parse()
	if _, err := run(context.Background(), *local, *cluster, *region, *queue, *data, *k8s); err != nil {
		fmt.Fprintln(os.Stderr, "aws-host:", err)
		os.Exit(1)
	}
}

// report is what one round did.
type report struct {
	described, usable int
	priceError        error // why the Pricing API refresh failed, if it did
	instanceProfile   string
	amis              []string
	launched          []*v1.NodeClaim
	poll              aws.PollResult
	live              []string // instances still running on the local EC2
}

func run(ctx context.Context, local bool, clusterName, region, queueURL, dataPath, k8sVersion string) (rep report, err error) {
	opts := []func(*config.LoadOptions) error{config.WithRegion(region)}
	var ec2Endpoint, sqsEndpoint, pricingEndpoint, iamEndpoint, ssmEndpoint string
	var localEC2 *awstest.EC2
	var localQueue *awstest.SQS
	if local {
		var err error
		var priceList []string
		if localEC2, priceList, err = localRegion(dataPath, region); err != nil {
			return rep, err
		}
		pricingSrv := awstest.NewPricingServer(awstest.NewPricing(priceList...))
		defer pricingSrv.Close()
		pricingEndpoint = pricingSrv.URL
		ec2srv := awstest.NewEC2Server(localEC2)
		defer ec2srv.Close()
		localQueue = awstest.NewSQS("")
		sqssrv := awstest.NewSQSServer(localQueue)
		defer sqssrv.Close()
		iamSrv := awstest.NewIAMServer(awstest.NewIAM(demoRole))
		defer iamSrv.Close()
		ssmSrv := awstest.NewSSMServer(awstest.NewSSM(map[string]string{
			"/aws/service/eks/optimized-ami/" + k8sVersion + "/amazon-linux-2023/x86_64/standard/recommended/image_id": "ami-0demoamd64",
			"/aws/service/eks/optimized-ami/" + k8sVersion + "/amazon-linux-2023/arm64/standard/recommended/image_id":  "ami-0demoarm64",
		}))
		defer ssmSrv.Close()
		ec2Endpoint, sqsEndpoint, queueURL, iamEndpoint, ssmEndpoint = ec2srv.URL, sqssrv.URL, localQueue.URL, iamSrv.URL, ssmSrv.URL
		opts = append(opts, config.WithCredentialsProvider(sdkaws.CredentialsProviderFunc(func(context.Context) (sdkaws.Credentials, error) {
			return sdkaws.Credentials{AccessKeyID: "AKIDLOCAL", SecretAccessKey: "local", Source: "aws-host -local"}, nil
		})))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return rep, fmt.Errorf("loading AWS configuration: %w", err)
	}
	ec2Client := ec2.NewFromConfig(cfg, func(o *ec2.Options) {
		if ec2Endpoint != "" {
			o.BaseEndpoint = sdkaws.String(ec2Endpoint)
		}
	})
	// The Pricing API has endpoints in a few regions only.
	pricingClient := pricing.NewFromConfig(cfg, func(o *pricing.Options) {
		o.Region = aws.PricingEndpointRegion(cfg.Region)
		if pricingEndpoint != "" {
			o.BaseEndpoint = sdkaws.String(pricingEndpoint)
		}
	})
	iamClient := iam.NewFromConfig(cfg, func(o *iam.Options) {
		if iamEndpoint != "" {
			o.BaseEndpoint = sdkaws.String(iamEndpoint)
		}
	})
	ssmClient := ssm.NewFromConfig(cfg, func(o *ssm.Options) {
		if ssmEndpoint != "" {
			o.BaseEndpoint = sdkaws.String(ssmEndpoint)
		}
	})
	sqsClient := sqs.NewFromConfig(cfg, func(o *sqs.Options) {
		if sqsEndpoint != "" {
			o.BaseEndpoint = sdkaws.String(sqsEndpoint)
		}
	})

	nodeClass, nodePool := demoNodeClass(), demoNodePool()
	provider, err := aws.New(aws.Config{
		ClusterName: clusterName, EC2: ec2Client, Pricing: pricingClient, KubernetesVersion: k8sVersion,
		IAM: iamClient, SSM: ssmClient, Region: cfg.Region,
		NodeClass: func(_ context.Context, name string) (*awsv1.EC2NodeClass, error) {
			if name == nodeClass.Name {
				return nodeClass.DeepCopy(), nil
			}
			return nil, nil
		},
		Cluster: aws.ClusterInfo{Endpoint: "https://demo.eks.example", CABundle: "LS0tLS1CRUdJTi0tLS0t", ServiceCIDR: "10.100.0.0/16"},
	})
	if err != nil {
		return rep, err
	}
	// Karpenter's NodeClass controller: resolve subnets, security groups, AMIs (the alias
	// through SSM) and the instance profile of the role (through IAM).
	if nodeClass, err = provider.ResolveNodeClass(ctx, nodeClass); err != nil {
		return rep, err
	}
	rep.instanceProfile = nodeClass.Status.InstanceProfile
	for _, a := range nodeClass.Status.AMIs {
		rep.amis = append(rep.amis, a.ID)
	}
	fmt.Printf("EC2NodeClass %s: instance profile %s, AMIs %v\n", nodeClass.Name, rep.instanceProfile, rep.amis)
	if err := provider.Refresh(ctx, region); err != nil {
		return rep, err
	}
	byPool, err := cloudprovider.InstanceTypesFor(ctx, provider, []*v1.NodePool{nodePool})
	if err != nil {
		return rep, err
	}
	types := byPool[nodePool.Name]
	rep.described, rep.usable, rep.priceError = len(provider.Region().Types), len(types), provider.Region().OnDemandPriceError
	if rep.priceError != nil {
		fmt.Printf("on-demand prices not refreshed, embedded ones kept: %v\n", rep.priceError)
	}
	fmt.Printf("region %s: %d instance types described, %d usable by NodePool %s\n", region, len(provider.Region().Types), len(types), nodePool.Name)

	// One Solve -> verify -> Launch round.
	snap, err := cluster.New(cluster.Objects{
		Pods: demoPods(), NodePools: []*v1.NodePool{nodePool},
		InstanceTypes:   byPool,
		WellKnownLabels: aws.WellKnownLabels(),
	})
	if err != nil {
		return rep, fmt.Errorf("snapshot: %w", err)
	}
	res, err := scheduling.Solve(snap, scheduling.Options{})
	if err != nil {
		return rep, fmt.Errorf("solving: %w", err)
	}
	if vs := verify.Solve(snap, scheduling.Options{}, res); len(vs) > 0 {
		return rep, fmt.Errorf("the plan breaks a rule, nothing launched: %v", vs) // check before spending money
	}
	for _, pe := range res.PodErrors {
		fmt.Printf("pod %s/%s not placed: %s\n", pe.Pod.Namespace, pe.Pod.Name, pe.Message())
	}
	seq := 0 // NodeClaim names: <nodepool>-00001, ...
	claims := scheduling.NodeClaimsFor(snap, res.NewNodeClaims, func(pool string) string { seq++; return fmt.Sprintf("%s-%05d", pool, seq) })
	created, err := cloudprovider.Launch(ctx, provider, claims)
	if err != nil {
		return rep, err
	}
	var launched []*v1.NodeClaim
	for i, out := range created {
		if out == nil {
			fmt.Printf("nodeclaim %s: insufficient capacity, its pods stay pending\n", claims[i].Name)
			continue
		}
		launched = append(launched, out)
		fmt.Printf("launched %s: %s %s %s in %s for %d pods (%d options)\n", out.Name, out.Status.ProviderID,
			out.Labels[v1.LabelInstanceType], out.Labels[v1.CapacityTypeLabelKey], out.Labels[v1.LabelTopologyZone], len(res.NewNodeClaims[i].Pods), len(res.NewNodeClaims[i].InstanceTypeOptions))
	}

	// One interruption round: the local queue gets a spot warning for the first instance.
	if localQueue != nil && len(launched) > 0 {
		_, id, _ := aws.ParseProviderID(launched[0].Status.ProviderID)
		localQueue.Send(fmt.Sprintf(`{"version":"0","id":"demo-1","detail-type":"EC2 Spot Instance Interruption Warning","source":"aws.ec2","time":%q,"region":%q,"detail":{"instance-id":%q,"instance-action":"terminate"}}`,
			time.Now().UTC().Format(time.RFC3339), region, id))
	}
	rep.launched = launched
	if queueURL == "" {
		return rep, nil
	}
	reader := &aws.InterruptionReader{SQS: sqsClient, QueueURL: queueURL, WaitTimeSeconds: 1}
	poll, err := reader.Poll(ctx, func(ctx context.Context, ev interruption.Event) error {
		claims, err := provider.Interrupted(ctx, ev) // marks interrupted spot offerings unavailable
		if err != nil {
			return err
		}
		for _, claim := range claims {
			fmt.Printf("interruption %s for %s: %s\n", ev.Kind, claim.Name, ev.Action())
			if ev.Action() == interruption.CordonAndDrain {
				// A real host drains the node first; the claim's instance then goes.
				if err := cloudprovider.IgnoreNodeClaimNotFoundError(provider.Delete(ctx, claim)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return rep, err
	}
	fmt.Printf("interruption queue: %d received, %d handled, %d malformed; unavailable offerings now: %v\n", poll.Received, poll.Handled, len(poll.Malformed), provider.Unavailable().List())
	rep.poll = poll
	if localEC2 != nil {
		rep.live = localEC2.Live()
		fmt.Printf("instances still running: %v\n", rep.live)
	}
	return rep, nil
}

// localRegion fills an in-memory EC2 with the data file's types in three zones, three
// subnets and spot prices at 40% of on-demand, and returns the Pricing API's price list for
// the types priced in region.
func localRegion(path, region string) (*awstest.EC2, []string, error) {
	types, err := awstest.DataTypes()
	if path != "" {
		types, err = awstest.ReadDataFile(path)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading instance-type data: %w", err)
	}
	e := awstest.NewEC2()
	e.OnDemandPrices = map[string]float64{}
	zones := []string{"us-east-1a", "us-east-1b", "us-east-1c"}
	for _, t := range types {
		info, ok := t.InstanceTypeInfo()
		if !ok {
			continue
		}
		e.InstanceTypes = append(e.InstanceTypes, info)
		price, priced := t.OnDemandPricePerHour["us-east-1"]
		if priced {
			e.OnDemandPrices[t.Name] = price
		}
		for _, z := range zones {
			e.Offerings = append(e.Offerings, awstest.Offering(t.Name, z))
			if priced {
				e.SpotPriceHistory = append(e.SpotPriceHistory, awstest.SpotPrice(t.Name, z, price*0.4, time.Now()))
			}
		}
	}
	discovery := []ec2types.Tag{{Key: sdkaws.String("karpenter.sh/discovery"), Value: sdkaws.String("demo")}}
	for i, z := range zones {
		s := awstest.Subnet(fmt.Sprintf("subnet-%c", 'a'+i), z, 250)
		s.Tags = discovery
		e.Subnets = append(e.Subnets, s)
	}
	e.SecurityGroups = []ec2types.SecurityGroup{{GroupId: sdkaws.String("sg-demo"), GroupName: sdkaws.String("demo-nodes"), Tags: discovery}}
	for arch, id := range map[ec2types.ArchitectureValues]string{ec2types.ArchitectureValuesX8664: "ami-0demoamd64", ec2types.ArchitectureValuesArm64: "ami-0demoarm64"} {
		e.Images = append(e.Images, ec2types.Image{
			ImageId: sdkaws.String(id), Architecture: arch, State: ec2types.ImageStateAvailable, ImageOwnerAlias: sdkaws.String("amazon"),
			Name:         sdkaws.String(fmt.Sprintf("amazon-eks-node-al2023-%s-standard-1.33-v20261101", arch)),
			CreationDate: sdkaws.String("2026-11-01T00:00:00.000Z"),
		})
	}
	return e, awstest.PriceListFromData(types, region, 1), nil
}

// demoRole is the node role the demo EC2NodeClass names.
const demoRole = "KarpenterNodeRole-demo"

// demoNodeClass is the EC2NodeClass as a user writes it; ResolveNodeClass fills its status.
func demoNodeClass() *awsv1.EC2NodeClass {
	nc := &awsv1.EC2NodeClass{}
	nc.Name = "default"
	nc.Spec.AMISelectorTerms = []awsv1.AMISelectorTerm{{Alias: "al2023@latest"}}
	nc.Spec.SubnetSelectorTerms = []awsv1.SubnetSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}}
	nc.Spec.SecurityGroupSelectorTerms = []awsv1.SecurityGroupSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "demo"}}}
	nc.UID = "demo-nodeclass-uid"
	nc.Spec.Role = demoRole
	return nc
}

func demoNodePool() *v1.NodePool {
	np := &v1.NodePool{}
	np.Name = "general"
	np.Spec.Template.Spec.NodeClassRef = &v1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}
	np.Spec.Template.Spec.Requirements = []v1.NodeSelectorRequirementWithMinValues{
		{Key: v1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"spot", "on-demand"}},
		{Key: "karpenter.k8s.aws/instance-category", Operator: corev1.NodeSelectorOpIn, Values: []string{"c", "m", "r"}},
	}
	np.SetDefaults()
	return np
}

// demoPods are five pods that one 2xlarge holds: the round launches one NodeClaim, which the
// interruption then deletes.
func demoPods() []*corev1.Pod {
	var pods []*corev1.Pod
	for i := range 5 {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: fmt.Sprintf("web-%d", i), UID: types.UID(fmt.Sprint("uid-web-", i))}}
		p.Spec.Containers = []corev1.Container{{Name: "web", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("1500m"), corev1.ResourceMemory: resource.MustParse("3Gi"),
		}}}}
		pods = append(pods, p)
	}
	return pods
}
