package aws_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/nodeplan/nodeplan/aws"
)

func TestUnavailableOfferingsExpireAfterThreeMinutes(t *testing.T) {
	clk := newClock()
	u := aws.NewUnavailableOfferings(clk.Now)
	u.MarkUnavailable("spot", "m5.large", "us-east-1a")
	assert.True(t, u.IsUnavailable("spot", "m5.large", "us-east-1a"))
	assert.False(t, u.IsUnavailable("on-demand", "m5.large", "us-east-1a"))
	assert.False(t, u.IsUnavailable("spot", "m5.large", "us-east-1b"))

	clk.Step(2 * time.Minute)
	u.MarkUnavailable("spot", "m5.large", "us-east-1a") // refreshes
	u.MarkUnavailable("on-demand", "c5.large", "us-east-1b")
	clk.Step(2 * time.Minute)
	assert.True(t, u.IsUnavailable("spot", "m5.large", "us-east-1a"), "re-marking refreshed the TTL")
	assert.Equal(t, []aws.UnavailableOffering{
		{CapacityType: "on-demand", InstanceType: "c5.large", Zone: "us-east-1b"},
		{CapacityType: "spot", InstanceType: "m5.large", Zone: "us-east-1a"},
	}, u.List())
	clk.Step(time.Minute)
	assert.False(t, u.IsUnavailable("spot", "m5.large", "us-east-1a"))
	assert.Empty(t, u.List())

	u.MarkCapacityTypeUnavailable("spot")
	assert.True(t, u.IsUnavailable("spot", "anything", "anywhere"))
	clk.Step(aws.UnavailableOfferingsTTL)
	assert.False(t, u.IsUnavailable("spot", "anything", "anywhere"))
}

func testTime(hours int) time.Time { return newClock().Now().Add(time.Duration(hours) * time.Hour) }
