package main

import (
	"fmt"
	"strconv"

	checkly "github.com/checkly/checkly-go-sdk"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func num(id int64) string { return strconv.FormatInt(id, 10) }
func parse(id string) int64 {
	n, _ := strconv.ParseInt(id, 10, 64)
	return n
}

func runtimes(r *run) {
	r.op("GetRuntime", func() (string, error) {
		got, err := r.sdk.GetRuntime(r.ctx, "2025.04")
		if err != nil {
			return "", err
		}
		if got.Name != "2025.04" || got.Stage == "" {
			return "", fmt.Errorf("runtime reads back as %+v", *got)
		}
		return fmt.Sprintf("%s %s", got.Name, got.Stage), nil
	})
	r.op("GetRuntime of an unknown runtime is an error", func() (string, error) {
		if _, err := r.sdk.GetRuntime(r.ctx, "1999.01"); err == nil {
			return "", fmt.Errorf("an unknown runtime read back")
		} else {
			return err.Error(), nil
		}
	})
}

func variables(r *run) {
	key := fmt.Sprintf("GO_SDK_%d", parse(unique("")[1:]))
	lifecycle(r, "variable", crud[checkly.EnvironmentVariable]{
		create: func(v checkly.EnvironmentVariable) (*checkly.EnvironmentVariable, error) {
			return r.sdk.CreateEnvironmentVariable(r.ctx, v)
		},
		get: func(id string) (*checkly.EnvironmentVariable, error) { return r.sdk.GetEnvironmentVariable(r.ctx, id) },
		update: func(id string, v checkly.EnvironmentVariable) (*checkly.EnvironmentVariable, error) {
			return r.sdk.UpdateEnvironmentVariable(r.ctx, id, v)
		},
		del:  func(id string) error { return r.sdk.DeleteEnvironmentVariable(r.ctx, id) },
		id:   func(v *checkly.EnvironmentVariable) string { return v.Key },
		list: "/v1/variables", listField: "key",
	}, checkly.EnvironmentVariable{Key: key, Value: "one"}, func(v *checkly.EnvironmentVariable) { v.Value = "two"; v.Locked = true }, nil)
}

func privateLocations(r *run) {
	slug := unique("go-sdk-office")
	lifecycle(r, "private location", crud[checkly.PrivateLocation]{
		create: func(v checkly.PrivateLocation) (*checkly.PrivateLocation, error) {
			return r.sdk.CreatePrivateLocation(r.ctx, v)
		},
		get: func(id string) (*checkly.PrivateLocation, error) { return r.sdk.GetPrivateLocation(r.ctx, id) },
		update: func(id string, v checkly.PrivateLocation) (*checkly.PrivateLocation, error) {
			return r.sdk.UpdatePrivateLocation(r.ctx, id, v)
		},
		del:  func(id string) error { return r.sdk.DeletePrivateLocation(r.ctx, id) },
		id:   func(v *checkly.PrivateLocation) string { return v.ID },
		list: "/v1/private-locations", listField: "id",
	}, checkly.PrivateLocation{Name: "Office", SlugName: slug, Icon: "location"},
		func(v *checkly.PrivateLocation) { v.Name = "Office Berlin" },
		cmp.Options{cmpopts.IgnoreFields(checkly.PrivateLocation{}, "ID", "Keys", "LastSeen", "AgentCount", "CreatedAt", "UpdatedAt")})
}

var channelServerFields = cmp.Options{
	cmpopts.IgnoreFields(checkly.AlertChannel{}, "ID", "CreatedAt", "UpdatedAt"),
	// Secrets are sealed in Vigil and read back masked, never in clear.
	cmpopts.IgnoreFields(checkly.AlertChannelOpsgenie{}, "APIKey"),
	cmpopts.IgnoreFields(checkly.AlertChannelPagerduty{}, "ServiceKey"),
	cmpopts.IgnoreFields(checkly.AlertChannelWebhook{}, "WebhookSecret"),
	cmpopts.EquateEmpty(),
}

func channel(kind string, config any) checkly.AlertChannel {
	ch := checkly.AlertChannel{
		Type:               kind,
		SendRecovery:       ptr(true),
		SendFailure:        ptr(true),
		SendDegraded:       ptr(false),
		SSLExpiry:          ptr(false),
		SSLExpiryThreshold: ptr(30),
	}
	ch.SetConfig(config)
	return ch
}

func channelCrud(r *run) crud[checkly.AlertChannel] {
	return crud[checkly.AlertChannel]{
		create: func(v checkly.AlertChannel) (*checkly.AlertChannel, error) { return r.sdk.CreateAlertChannel(r.ctx, v) },
		get:    func(id string) (*checkly.AlertChannel, error) { return r.sdk.GetAlertChannel(r.ctx, parse(id)) },
		update: func(id string, v checkly.AlertChannel) (*checkly.AlertChannel, error) {
			return r.sdk.UpdateAlertChannel(r.ctx, parse(id), v)
		},
		del:  func(id string) error { return r.sdk.DeleteAlertChannel(r.ctx, parse(id)) },
		id:   func(v *checkly.AlertChannel) string { return num(v.ID) },
		list: "/v1/alert-channels", listField: "id",
	}
}

func channels(r *run) {
	m := channelCrud(r)
	lifecycle(r, "EMAIL channel", m, channel(checkly.AlertTypeEmail, &checkly.AlertChannelEmail{Address: "oncall@example.com"}),
		func(v *checkly.AlertChannel) { v.Email.Address = "ops@example.com" }, channelServerFields)
	lifecycle(r, "SLACK channel", m, channel(checkly.AlertTypeSlack, &checkly.AlertChannelSlack{WebhookURL: "https://hooks.slack.com/services/T0/B0/x", Channel: "#ops"}),
		func(v *checkly.AlertChannel) { v.Slack.Channel = "#alerts" }, channelServerFields)
	lifecycle(r, "WEBHOOK channel", m, channel(checkly.AlertTypeWebhook, &checkly.AlertChannelWebhook{
		Name: "hook", URL: "https://hooks.example.com/vigil", Method: "POST", Template: `{"check":"{{CHECK_NAME}}"}`,
		WebhookSecret: "s3cr3t-s3cr3t", Headers: []checkly.KeyValue{{Key: "X-Team", Value: "ops"}},
	}), func(v *checkly.AlertChannel) { v.Webhook.Method = "PUT" }, channelServerFields)
	lifecycle(r, "WEBHOOK_MSTEAMS channel", m, channel(checkly.AlertTypeWebhook, &checkly.AlertChannelWebhook{
		Name: "teams", URL: "https://example.webhook.office.com/webhookb2/x", WebhookType: "WEBHOOK_MSTEAMS", Method: "POST",
	}), func(v *checkly.AlertChannel) { v.Webhook.Name = "teams ops" }, channelServerFields)
	lifecycle(r, "OPSGENIE channel", m, channel(checkly.AlertTypeOpsgenie, &checkly.AlertChannelOpsgenie{
		Name: "Genie", APIKey: "a1b2c3d4-e5f6-4718-8293-a4b5c6d7e8f9", Region: "EU", Priority: "P2",
	}), func(v *checkly.AlertChannel) { v.Opsgenie.Priority = "P1" }, channelServerFields)
	lifecycle(r, "PAGERDUTY channel", m, channel(checkly.AlertTypePagerduty, &checkly.AlertChannelPagerduty{
		ServiceKey: "a1b2c3d4e5f60718293a4b5c6d7e8f90", ServiceName: "API",
	}), func(v *checkly.AlertChannel) { v.Pagerduty.ServiceName = "Payments" }, channelServerFields)
}

func windows(r *run) {
	lifecycle(r, "maintenance window", crud[checkly.MaintenanceWindow]{
		create: func(v checkly.MaintenanceWindow) (*checkly.MaintenanceWindow, error) {
			return r.sdk.CreateMaintenanceWindow(r.ctx, v)
		},
		get: func(id string) (*checkly.MaintenanceWindow, error) {
			return r.sdk.GetMaintenanceWindow(r.ctx, parse(id))
		},
		update: func(id string, v checkly.MaintenanceWindow) (*checkly.MaintenanceWindow, error) {
			return r.sdk.UpdateMaintenanceWindow(r.ctx, parse(id), v)
		},
		del:  func(id string) error { return r.sdk.DeleteMaintenanceWindow(r.ctx, parse(id)) },
		id:   func(v *checkly.MaintenanceWindow) string { return num(v.ID) },
		list: "/v1/maintenance-windows", listField: "id",
	}, checkly.MaintenanceWindow{
		Name: "Weekly deploy", StartsAt: "2030-01-06T02:00:00.000Z", EndsAt: "2030-01-06T03:00:00.000Z",
		RepeatInterval: 1, RepeatUnit: "WEEK", RepeatEndsAt: "2030-12-31T00:00:00.000Z", Tags: []string{"deploy"},
	}, func(v *checkly.MaintenanceWindow) {
		v.EndsAt = "2030-01-06T04:00:00.000Z"
		v.Tags = []string{"deploy", "db"}
	},
		cmp.Options{cmpopts.IgnoreFields(checkly.MaintenanceWindow{}, "ID", "CreatedAt", "UpdatedAt"), cmpopts.EquateEmpty()})
}
