package catalog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadEC2TablesCoversUnpricedTypes(t *testing.T) {
	tab, err := LoadEC2Tables()
	require.NoError(t, err)
	assert.Equal(t, 0.096, tab.OnDemandPrices["m5.large"])
	assert.Equal(t, "750", tab.NetworkBandwidth["m5.large"])
	q := tab.PodENIs["m5.large"]
	assert.Equal(t, int64(9), q.Value())
	_, priced := tab.OnDemandPrices["p5e.48xlarge"]
	assert.False(t, priced, "no us-east-1 price in the data file")
	assert.Contains(t, tab.NetworkBandwidth, "p5e.48xlarge", "unpriced types still have their tables")
	assert.Len(t, tab.OnDemandPrices, 1345)
}
