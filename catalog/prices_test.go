package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// awsCLIOutput is `aws ec2 describe-spot-price-history --instance-types m5.large c5.large
// --product-descriptions Linux/UNIX ...` as the AWS CLI prints it: newest first, several
// entries per type and zone, other operating systems when not filtered.
const awsCLIOutput = `{
    "SpotPriceHistory": [
        {
            "AvailabilityZone": "us-east-1a",
            "InstanceType": "m5.large",
            "ProductDescription": "Linux/UNIX",
            "SpotPrice": "0.039100",
            "Timestamp": "2026-11-30T18:02:11+00:00"
        },
        {
            "AvailabilityZone": "us-east-1a",
            "InstanceType": "m5.large",
            "ProductDescription": "Linux/UNIX",
            "SpotPrice": "0.041000",
            "Timestamp": "2026-11-30T06:00:00+00:00"
        },
        {
            "AvailabilityZone": "us-east-1b",
            "InstanceType": "m5.large",
            "ProductDescription": "Linux/UNIX (Amazon VPC)",
            "SpotPrice": "0.036000",
            "Timestamp": "2026-11-29T23:59:59.000Z"
        },
        {
            "AvailabilityZone": "us-east-1b",
            "InstanceType": "m5.large",
            "ProductDescription": "Windows",
            "SpotPrice": "0.120000",
            "Timestamp": "2026-11-30T23:00:00+00:00"
        },
        {
            "AvailabilityZone": "us-east-1d",
            "InstanceType": "c5.large",
            "ProductDescription": "Linux/UNIX",
            "SpotPrice": "0.030000",
            "Timestamp": "2026-11-30T10:00:00+00:00"
        },
        {
            "AvailabilityZone": "us-east-1a",
            "InstanceType": "m5.large",
            "ProductDescription": "Linux/UNIX",
            "SpotPrice": "0.050000",
            "Timestamp": "2026-11-01T00:00:00+00:00"
        },
        {
            "AvailabilityZone": "us-east-1a",
            "InstanceType": "x99.large",
            "ProductDescription": "Linux/UNIX",
            "SpotPrice": "0.010000",
            "Timestamp": "2026-11-30T10:00:00+00:00"
        }
    ],
    "NextToken": ""
}`

func TestParseSpotPrices(t *testing.T) {
	sp, err := ParseSpotPrices([]byte(awsCLIOutput), "spot.json")
	require.NoError(t, err)
	assert.Equal(t, SpotPrices{
		"m5.large":  {"us-east-1a": 0.0391, "us-east-1b": 0.036},
		"c5.large":  {"us-east-1d": 0.03},
		"x99.large": {"us-east-1a": 0.01},
	}, sp, "latest Linux price per type and zone")
	unknown, err := sp.Unknown()
	require.NoError(t, err)
	assert.Equal(t, []string{"x99.large"}, unknown)

	// Order does not matter: the latest timestamp wins wherever it is listed.
	reordered := strings.Replace(awsCLIOutput, `"Timestamp": "2026-11-30T06:00:00+00:00"`, `"Timestamp": "2026-12-01T06:00:00+00:00"`, 1)
	sp, err = ParseSpotPrices([]byte(reordered), "spot.json")
	require.NoError(t, err)
	assert.Equal(t, 0.041, sp["m5.large"]["us-east-1a"])
}

func TestParseSpotPricesErrors(t *testing.T) {
	for _, c := range []struct{ name, data, want string }{
		{"bad JSON", `{"SpotPriceHistory": [`, "spot.json: not the JSON of `aws ec2 describe-spot-price-history`"},
		{"not an object", `[1, 2]`, "spot.json: not the JSON"},
		{"another command's output", `{"InstanceTypes": []}`, "spot.json: SpotPriceHistory: missing"},
		{"trailing data", `{"SpotPriceHistory": []} {}`, "spot.json: unexpected data"},
		{"bad price", `{"SpotPriceHistory": [{"AvailabilityZone": "us-east-1a", "InstanceType": "m5.large", "SpotPrice": "cheap", "Timestamp": "2026-11-30T06:00:00Z"}]}`,
			`spot.json: SpotPriceHistory[0].SpotPrice: "cheap" is not a price`},
		{"negative price", `{"SpotPriceHistory": [{"AvailabilityZone": "us-east-1a", "InstanceType": "m5.large", "SpotPrice": "-1", "Timestamp": "2026-11-30T06:00:00Z"}]}`,
			`SpotPriceHistory[0].SpotPrice: "-1"`},
		{"bad time", `{"SpotPriceHistory": [{"AvailabilityZone": "us-east-1a", "InstanceType": "m5.large", "SpotPrice": "1", "Timestamp": "yesterday"}]}`,
			`spot.json: SpotPriceHistory[0].Timestamp: "yesterday" is not an RFC 3339 time`},
		{"no type", `{"SpotPriceHistory": [{"AvailabilityZone": "us-east-1a", "SpotPrice": "1", "Timestamp": "2026-11-30T06:00:00Z"}]}`,
			`SpotPriceHistory[0].InstanceType: required`},
		{"no zone", `{"SpotPriceHistory": [{}, {"InstanceType": "m5.large"}]}`, `SpotPriceHistory[1].AvailabilityZone: required`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSpotPrices([]byte(c.data), "spot.json")
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	_, err := ParseSpotPricesFile(filepath.Join(t.TempDir(), "missing.json"))
	assert.ErrorContains(t, err, "missing.json: no such file")
}

func TestEC2SpotPrices(t *testing.T) {
	path := filepath.Join(t.TempDir(), "spot.json")
	require.NoError(t, os.WriteFile(path, []byte(awsCLIOutput), 0o644))
	sp, err := ParseSpotPricesFile(path)
	require.NoError(t, err)
	its, err := BuildEC2(EC2Options{SpotPrices: sp})
	require.NoError(t, err)
	got := map[string]string{}
	for _, o := range find(its, "m5.large").Offerings {
		if o.CapacityType() == v1.CapacityTypeSpot {
			state := "unavailable"
			if o.Available {
				state = "available"
			}
			got[o.Zone()] = state
			if o.Available {
				assert.Equal(t, sp["m5.large"][o.Zone()], o.Price)
			}
		} else {
			assert.Equal(t, 0.096, o.Price)
			assert.True(t, o.Available)
		}
	}
	// With real prices, a zone without one has no spot offering to launch (as in Karpenter).
	assert.Equal(t, map[string]string{"us-east-1a": "available", "us-east-1b": "available", "us-east-1c": "unavailable"}, got)
	for _, o := range find(its, "c5.large").Offerings {
		if o.CapacityType() == v1.CapacityTypeSpot {
			assert.False(t, o.Available, "c5.large's only price is in a zone the catalog does not offer")
		}
	}
}

// TestParseSpotPricesMutations feeds deterministic mutations of the CLI output (every prefix,
// every single byte replaced): never a panic, and an error or prices, never both.
func TestParseSpotPricesMutations(t *testing.T) {
	data := []byte(awsCLIOutput)
	check := func(b []byte) {
		sp, err := ParseSpotPrices(b, "m.json")
		if err != nil {
			assert.Nil(t, sp)
			assert.Contains(t, err.Error(), "m.json")
		}
	}
	for i := 0; i < len(data); i += 7 {
		check(data[:i])
		for _, c := range []byte{'"', '{', ']', '0', ' '} {
			m := append([]byte(nil), data...)
			m[i] = c
			check(m)
		}
	}
}

func FuzzParseSpotPrices(f *testing.F) {
	f.Add([]byte(awsCLIOutput))
	f.Add([]byte(`{"SpotPriceHistory": []}`))
	f.Add([]byte(`{"SpotPriceHistory": [{"AvailabilityZone": "a", "InstanceType": "b", "SpotPrice": "1e308", "Timestamp": "2026-01-01T00:00:00Z"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sp, err := ParseSpotPrices(data, "fuzz.json")
		if err == nil {
			for _, zones := range sp {
				for _, p := range zones {
					if p < 0 {
						t.Fatalf("negative price %v", p)
					}
				}
			}
		}
	})
}
