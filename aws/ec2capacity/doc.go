// Package ec2capacity computes what an EC2 instance type offers a Kubernetes node under an
// EC2NodeClass's settings, with the arithmetic of Karpenter's AWS provider: capacity (VM
// memory overhead, ENI-limited max pods, maxPods and podsPerCore, ephemeral storage from the
// root volume or instance store), kube-reserved (CPU tiers, 11 MiB per pod + 255 MiB),
// system-reserved and the hard eviction threshold, hence allocatable.
//
// It takes plain facts (vCPUs, memory, ENI limits) and never imports the AWS SDK, so the
// embedded catalog and the CLI build in seconds; the aws package feeds it from
// DescribeInstanceTypes. It never reads a clock, a file or the network.
package ec2capacity
