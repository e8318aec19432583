package main

import (
	checkly "github.com/checkly/checkly-go-sdk"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var (
	groupServerFields   = cmp.Options{cmpopts.IgnoreFields(checkly.Group{}, "ID", "CreatedAt", "UpdatedAt"), cmpopts.EquateEmpty()}
	groupV2ServerFields = cmp.Options{cmpopts.IgnoreFields(checkly.GroupV2{}, "ID", "CreatedAt", "UpdatedAt"), cmpopts.EquateEmpty()}
)

// groups: check groups (v1 and v2 of the SDK), then a check placed in a group, subscribed to a
// channel and run from a private location, as a Terraform module wires them.
func groups(r *run) {
	lifecycle(r, "group", crud[checkly.Group]{
		create: func(v checkly.Group) (*checkly.Group, error) { return r.sdk.CreateGroup(r.ctx, v) },
		get:    func(id string) (*checkly.Group, error) { return r.sdk.GetGroup(r.ctx, parse(id)) },
		update: func(id string, v checkly.Group) (*checkly.Group, error) {
			return r.sdk.UpdateGroup(r.ctx, parse(id), v)
		},
		del:  func(id string) error { return r.sdk.DeleteGroup(r.ctx, parse(id)) },
		id:   func(v *checkly.Group) string { return num(v.ID) },
		list: "/v1/check-groups", listField: "id",
	}, checkly.Group{
		Name: unique("go-sdk group"), Activated: true, Concurrency: 1, UseGlobalAlertSettings: true, Tags: []string{"go-sdk"},
		Locations: []string{"eu-west-1"},
		// The SDK sends [] for a nil list (createGroupPayload), so [] is what it sent.
		PrivateLocations:     &[]string{},
		EnvironmentVariables: []checkly.EnvironmentVariable{{Key: "REGION", Value: "eu"}},
	}, func(v *checkly.Group) { v.Tags = []string{"go-sdk", "changed"} }, groupServerFields)

	lifecycle(r, "group v2", crud[checkly.GroupV2]{
		create: func(v checkly.GroupV2) (*checkly.GroupV2, error) { return r.sdk.CreateGroupV2(r.ctx, v) },
		get:    func(id string) (*checkly.GroupV2, error) { return r.sdk.GetGroupV2(r.ctx, parse(id)) },
		update: func(id string, v checkly.GroupV2) (*checkly.GroupV2, error) {
			return r.sdk.UpdateGroupV2(r.ctx, parse(id), v)
		},
		del:  func(id string) error { return r.sdk.DeleteGroupV2(r.ctx, parse(id)) },
		id:   func(v *checkly.GroupV2) string { return num(v.ID) },
		list: "/v1/check-groups", listField: "id",
	}, checkly.GroupV2{Name: unique("go-sdk group v2"), Activated: true, Concurrency: 1, UseGlobalAlertSettings: ptr(true),
		RunParallel: ptr(false), PrivateLocations: &[]string{}, Tags: []string{"v2"}},
		func(v *checkly.GroupV2) { v.Name += " changed" }, groupV2ServerFields)

	// A check in a group, subscribed to a channel, at a private location.
	var group *checkly.Group
	var ch *checkly.AlertChannel
	var loc *checkly.PrivateLocation
	if !r.op("wired: CreateGroup", func() (g string, err error) {
		group, err = r.sdk.CreateGroup(r.ctx, checkly.Group{Name: unique("go-sdk wired"), Activated: true, Concurrency: 1, UseGlobalAlertSettings: true})
		return "", err
	}) || !r.op("wired: CreateAlertChannel", func() (g string, err error) {
		ch, err = r.sdk.CreateAlertChannel(r.ctx, channel(checkly.AlertTypeEmail, &checkly.AlertChannelEmail{Address: "wired@example.com"}))
		return "", err
	}) || !r.op("wired: CreatePrivateLocation", func() (g string, err error) {
		loc, err = r.sdk.CreatePrivateLocation(r.ctx, checkly.PrivateLocation{Name: "Wired", SlugName: unique("go-sdk-wired")})
		return "", err
	}) {
		return
	}
	check := apiCheck(unique("go-sdk wired check"))
	check.GroupID = group.ID
	check.AlertChannelSubscriptions = []checkly.AlertChannelSubscription{{ChannelID: ch.ID, Activated: true}}
	check.PrivateLocations = &[]string{loc.SlugName}
	checkLifecycle(r, "wired check", check, func(c *checkly.Check) {
		c.GroupID = 0
		c.AlertChannelSubscriptions = nil
		c.PrivateLocations = &[]string{}
	})
	r.op("wired: group subscriptions and private location", func() (string, error) {
		g := checkly.Group{Name: group.Name, Activated: true, Concurrency: 1, UseGlobalAlertSettings: true,
			PrivateLocations:          &[]string{loc.SlugName},
			AlertChannelSubscriptions: []checkly.AlertChannelSubscription{{ChannelID: ch.ID, Activated: true}}}
		updated, err := r.sdk.UpdateGroup(r.ctx, group.ID, g)
		if err != nil {
			return "", err
		}
		return noDiff(g, *updated, groupServerFields)
	})
	r.op("wired: DeleteGroup", func() (string, error) { return "", r.sdk.DeleteGroup(r.ctx, group.ID) })
	r.op("wired: DeleteAlertChannel", func() (string, error) { return "", r.sdk.DeleteAlertChannel(r.ctx, ch.ID) })
	r.op("wired: DeletePrivateLocation", func() (string, error) { return "", r.sdk.DeletePrivateLocation(r.ctx, loc.ID) })
}
