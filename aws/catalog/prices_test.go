package catalog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/internal/fuzzbudget"
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

// TestParseSpotPricesEntryErrors: a bad entry is a *FieldError naming the file, the entry, its
// instance type and zone, and the field; a price outside the catalog file's bounds (or 0, or
// not a plain decimal number) wraps ErrPrice.
func TestParseSpotPricesEntryErrors(t *testing.T) {
	entry := func(price, ts string) string {
		return `{"SpotPriceHistory": [{"AvailabilityZone": "us-east-1a", "InstanceType": "m5.large", "SpotPrice": "` + price + `", "Timestamp": "` + ts + `"}]}`
	}
	const ts = "2026-11-30T06:00:00Z"
	for _, c := range []struct {
		name, data, field string
		price             bool
	}{
		{"not a number", entry("cheap", ts), "SpotPrice", true},
		{"negative", entry("-1", ts), "SpotPrice", true},
		{"zero: EC2 never reports it", entry("0", ts), "SpotPrice", true},
		{"1.79e308: +Inf in the JSON output", entry("1.79e308", ts), "SpotPrice", true},
		{"above MaxPrice", entry("1000000001", ts), "SpotPrice", true},
		{"out of float range", entry("1e400", ts), "SpotPrice", true},
		{"hex float", entry("0x1p-3", ts), "SpotPrice", true},
		{"infinity", entry("Inf", ts), "SpotPrice", true},
		{"bad time", entry("1", "yesterday"), "Timestamp", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSpotPrices([]byte(c.data), "spot.json")
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, FieldError{Source: "spot.json", Entry: "SpotPriceHistory[0]", InstanceType: "m5.large", Zone: "us-east-1a", Field: c.field},
				FieldError{Source: fe.Source, Entry: fe.Entry, InstanceType: fe.InstanceType, Zone: fe.Zone, Field: fe.Field})
			assert.Equal(t, c.price, errors.Is(err, ErrPrice), "%v", err)
		})
	}
	for _, c := range []struct{ data, entry, field string }{
		{`{"SpotPriceHistory": [{"AvailabilityZone": "us-east-1a", "SpotPrice": "1", "Timestamp": "2026-11-30T06:00:00Z"}]}`, "SpotPriceHistory[0]", "InstanceType"},
		{`{"SpotPriceHistory": [{"InstanceType": "m5.large", "SpotPrice": "1", "AvailabilityZone": "a", "Timestamp": "2026-11-30T06:00:00Z"}, {"InstanceType": "m5.large"}]}`, "SpotPriceHistory[1]", "AvailabilityZone"},
	} {
		_, err := ParseSpotPrices([]byte(c.data), "spot.json")
		var fe *FieldError
		require.ErrorAs(t, err, &fe)
		assert.Equal(t, [2]string{c.entry, c.field}, [2]string{fe.Entry, fe.Field})
	}
	sp, err := ParseSpotPrices([]byte(entry("1e9", ts)), "spot.json")
	require.NoError(t, err, "the highest price is allowed")
	assert.Equal(t, 1e9, sp["m5.large"]["us-east-1a"])
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
	fuzzbudget.ShortMinimization(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		sp, err := ParseSpotPrices(data, "fuzz.json")
		if err == nil {
			for _, zones := range sp {
				for _, p := range zones {
					if !(p > 0 && p <= MaxPrice) {
						t.Fatalf("price %v outside (0, MaxPrice]", p)
					}
				}
			}
		}
	})
}
