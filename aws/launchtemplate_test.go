package aws_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/aws"
)

// gatheringDescribe holds each DescribeLaunchTemplates answer at a gate, so that launches
// that look a template up at the same time all see it missing.
type gatheringDescribe struct {
	aws.EC2API
	*gate
}

func (g gatheringDescribe) DescribeLaunchTemplates(ctx context.Context, in *ec2.DescribeLaunchTemplatesInput, opts ...func(*ec2.Options)) (*ec2.DescribeLaunchTemplatesOutput, error) {
	out, err := g.EC2API.DescribeLaunchTemplates(ctx, in, opts...)
	g.wait()
	return out, err
}

// Concurrent launches that need the same new launch templates make one
// CreateLaunchTemplate (and one DescribeLaunchTemplates) per template, not one per launch.
// On the old code 8 concurrent Creates made 8 calls for every template.
func TestConcurrentCreatesMakeEachLaunchTemplateOnce(t *testing.T) {
	f := newFixture(t)
	const launches = 8
	p := f.provider(t, gatheringDescribe{EC2API: f.ec2, gate: newGate(launches, 100*time.Millisecond)})
	var wg sync.WaitGroup
	errs := make([]error, launches)
	for i := range launches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = p.Create(context.Background(), claim(fmt.Sprintf("burst-%d", i), "spot", "on-demand"))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	templates := len(f.ec2.LaunchTemplateNames())
	require.Positive(t, templates)
	assert.Equal(t, templates, f.ec2.Calls("CreateLaunchTemplate"), "one creation per template")
	assert.Equal(t, templates, f.ec2.Calls("DescribeLaunchTemplates"), "one look-up per template")
	assert.Len(t, f.ec2.Live(), launches)
}
