package main

import (
	checkly "github.com/checkly/checkly-go-sdk"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Fields the server sets, which Terraform never compares with its configuration.
var (
	checkServerFields = cmp.Options{
		cmpopts.IgnoreFields(checkly.Check{}, "ID", "CreatedAt", "UpdatedAt", "Heartbeat.PingToken"),
		cmpopts.EquateEmpty(),
	}
	tcpServerFields        = cmp.Options{cmpopts.IgnoreFields(checkly.TCPMonitor{}, "ID", "CreatedAt", "UpdatedAt"), cmpopts.EquateEmpty()}
	urlServerFields        = cmp.Options{cmpopts.IgnoreFields(checkly.URLMonitor{}, "ID", "CreatedAt", "UpdatedAt"), cmpopts.EquateEmpty()}
	dnsServerFields        = cmp.Options{cmpopts.IgnoreFields(checkly.DNSMonitor{}, "ID", "CreatedAt", "UpdatedAt"), cmpopts.EquateEmpty()}
	playwrightServerFields = cmp.Options{
		cmpopts.IgnoreFields(checkly.PlaywrightCheck{}, "ID", "CreatedAt", "UpdatedAt"), cmpopts.EquateEmpty(),
	}
	hbServerFields = cmp.Options{
		cmpopts.IgnoreFields(checkly.HeartbeatMonitor{}, "ID", "CreatedAt", "UpdatedAt", "Heartbeat.PingToken"),
		cmpopts.EquateEmpty(),
	}
)

func alertSettings() checkly.AlertSettings {
	return checkly.AlertSettings{
		EscalationType:     checkly.RunBased,
		RunBasedEscalation: checkly.RunBasedEscalation{FailedRunThreshold: 2},
		// The Terraform provider's default, which it always sends.
		TimeBasedEscalation: checkly.TimeBasedEscalation{MinutesFailingThreshold: 5},
		Reminders:           checkly.Reminders{Amount: 1, Interval: 10},
	}
}

// apiCheck is an API check as the Terraform provider builds one from a checkly_check resource.
func apiCheck(name string) checkly.Check {
	return checkly.Check{
		Name:                 name,
		Type:                 checkly.TypeAPI,
		Frequency:            5,
		Activated:            true,
		Locations:            []string{"eu-west-1"},
		DegradedResponseTime: 3000,
		MaxResponseTime:      10000,
		Tags:                 []string{"go-sdk", "api"},
		AlertSettings:        alertSettings(),
		Request: checkly.Request{
			Method:          "POST",
			URL:             "https://api.example.com/orders",
			FollowRedirects: true,
			Body:            `{"probe":true}`,
			BodyType:        "JSON",
			Headers:         []checkly.KeyValue{{Key: "X-Probe", Value: "1"}},
			QueryParameters: []checkly.KeyValue{{Key: "q", Value: "1"}},
			Assertions: []checkly.Assertion{
				{Source: checkly.StatusCode, Comparison: checkly.Equals, Target: "200"},
				{Source: checkly.JSONBody, Property: "$.ok", Comparison: checkly.Equals, Target: "true"},
			},
		},
		// The SDK sends [] for a nil list (createCheckPayload), so [] is what it sent.
		PrivateLocations: &[]string{},
		RetryStrategy:    &checkly.RetryStrategy{Type: "FIXED", BaseBackoffSeconds: 60, MaxRetries: 2, MaxDurationSeconds: 600, SameRegion: true},
	}
}

// checkLifecycle runs one check of the generic Check type through lifecycle, on the SDK's
// CreateCheck (POST /v1/checks/{type}), GetCheck, UpdateCheck and DeleteCheck.
func checkLifecycle(r *run, label string, check checkly.Check, change func(*checkly.Check)) {
	lifecycle(r, label, crud[checkly.Check]{
		create: func(v checkly.Check) (*checkly.Check, error) { return r.sdk.CreateCheck(r.ctx, v) },
		get:    func(id string) (*checkly.Check, error) { return r.sdk.GetCheck(r.ctx, id) },
		update: func(id string, v checkly.Check) (*checkly.Check, error) { return r.sdk.UpdateCheck(r.ctx, id, v) },
		del:    func(id string) error { return r.sdk.DeleteCheck(r.ctx, id) },
		id:     func(v *checkly.Check) string { return v.ID },
		list:   "/v1/checks?limit=100", listField: "id",
	}, check, change, checkServerFields)
}

func checks(r *run) {
	checkLifecycle(r, "API", apiCheck(unique("go-sdk api")), func(c *checkly.Check) {
		c.Frequency = 10
		c.Tags = []string{"go-sdk", "changed"}
		c.Request.Assertions = c.Request.Assertions[:1]
	})

	browser := checkly.Check{
		Name:             unique("go-sdk browser"),
		Type:             checkly.TypeBrowser,
		Frequency:        10,
		Activated:        true,
		Locations:        []string{"eu-west-1"},
		Script:           "const { chromium } = require('playwright');\n// go-sdk browser check\n",
		Tags:             []string{"go-sdk"},
		AlertSettings:    alertSettings(),
		PrivateLocations: &[]string{},
	}
	checkLifecycle(r, "BROWSER", browser, func(c *checkly.Check) { c.Script += "// changed\n" })

	multi := checkly.Check{
		Name:             unique("go-sdk multistep"),
		Type:             "MULTI_STEP",
		Frequency:        10,
		Activated:        true,
		Locations:        []string{"eu-west-1"},
		Script:           "const { test } = require('@playwright/test');\ntest('steps', async ({ request }) => {});\n",
		Tags:             []string{"go-sdk"},
		AlertSettings:    alertSettings(),
		PrivateLocations: &[]string{},
	}
	checkLifecycle(r, "MULTI_STEP", multi, func(c *checkly.Check) { c.Frequency = 30 })

	// The deprecated generic methods (POST /v1/checks, PUT /v1/checks/{id}) older providers call.
	legacy := apiCheck(unique("go-sdk legacy"))
	var id string
	if r.op("legacy: Create", func() (string, error) {
		created, err := r.sdk.Create(r.ctx, legacy)
		if err != nil {
			return "", err
		}
		id = created.ID
		return noDiff(legacy, *created, checkServerFields)
	}) {
		legacy.Muted = true
		r.op("legacy: Update", func() (string, error) {
			updated, err := r.sdk.Update(r.ctx, id, legacy)
			if err != nil {
				return "", err
			}
			return noDiff(legacy, *updated, checkServerFields)
		})
		r.op("legacy: Get", func() (string, error) {
			got, err := r.sdk.Get(r.ctx, id)
			if err != nil {
				return "", err
			}
			return noDiff(legacy, *got, checkServerFields)
		})
		r.op("legacy: Delete", func() (string, error) { return "", r.sdk.Delete(r.ctx, id) })
	}
}
