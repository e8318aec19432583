package main

import (
	checkly "github.com/checkly/checkly-go-sdk"
)

// monitors: the typed check families of the SDK (heartbeat, TCP, URL, DNS, Playwright) on
// /v1/checks/{type}; the ones Vigil lacks must be refused as unsupported.
func monitors(r *run) {
	hb := checkly.HeartbeatMonitor{
		Name:          unique("go-sdk heartbeat"),
		Activated:     true,
		Tags:          []string{"go-sdk"},
		AlertSettings: alertSettings(),
		Heartbeat:     checkly.Heartbeat{Period: 1, PeriodUnit: "hours", Grace: 10, GraceUnit: "minutes"},
	}
	lifecycle(r, "HEARTBEAT", crud[checkly.HeartbeatMonitor]{
		create: func(v checkly.HeartbeatMonitor) (*checkly.HeartbeatMonitor, error) {
			return r.sdk.CreateHeartbeatMonitor(r.ctx, v)
		},
		get: func(id string) (*checkly.HeartbeatMonitor, error) { return r.sdk.GetHeartbeatMonitor(r.ctx, id) },
		update: func(id string, v checkly.HeartbeatMonitor) (*checkly.HeartbeatMonitor, error) {
			return r.sdk.UpdateHeartbeatMonitor(r.ctx, id, v)
		},
		del:  func(id string) error { return r.sdk.DeleteHeartbeatMonitor(r.ctx, id) },
		id:   func(v *checkly.HeartbeatMonitor) string { return v.ID },
		list: "/v1/checks?limit=100", listField: "id",
	}, hb, func(v *checkly.HeartbeatMonitor) { v.Heartbeat.Grace = 20 }, hbServerFields)

	settings := alertSettings()
	tcp := checkly.TCPMonitor{
		Name:                 unique("go-sdk tcp"),
		Frequency:            5,
		Activated:            true,
		Locations:            []string{"eu-west-1"},
		DegradedResponseTime: 4000,
		MaxResponseTime:      5000,
		Tags:                 []string{"go-sdk"},
		AlertSettings:        &settings,
		Request: checkly.TCPRequest{
			Hostname:   "db.example.com",
			Port:       5432,
			IPFamily:   "IPv4",
			Assertions: []checkly.Assertion{{Source: checkly.ResponseTime, Comparison: checkly.LessThan, Target: "2000"}},
		},
		PrivateLocations: &[]string{},
		RetryStrategy:    &checkly.RetryStrategy{Type: "LINEAR", BaseBackoffSeconds: 30, MaxRetries: 1, MaxDurationSeconds: 300},
	}
	lifecycle(r, "TCP", crud[checkly.TCPMonitor]{
		create: func(v checkly.TCPMonitor) (*checkly.TCPMonitor, error) { return r.sdk.CreateTCPMonitor(r.ctx, v) },
		get:    func(id string) (*checkly.TCPMonitor, error) { return r.sdk.GetTCPMonitor(r.ctx, id) },
		update: func(id string, v checkly.TCPMonitor) (*checkly.TCPMonitor, error) {
			return r.sdk.UpdateTCPMonitor(r.ctx, id, v)
		},
		del:  func(id string) error { return r.sdk.DeleteTCPMonitor(r.ctx, id) },
		id:   func(v *checkly.TCPMonitor) string { return v.ID },
		list: "/v1/checks?limit=100", listField: "id",
	}, tcp, func(v *checkly.TCPMonitor) { v.Request.Port = 5433 }, tcpServerFields)

	url := checkly.URLMonitor{
		Name:                 unique("go-sdk url"),
		Frequency:            5,
		DegradedResponseTime: 3000,
		MaxResponseTime:      5000,
		Activated:            true,
		Locations:            []string{"eu-west-1"},
		Tags:                 []string{"go-sdk"},
		AlertSettings:        &settings,
		Request: checkly.URLRequest{
			URL:             "https://www.example.com/",
			FollowRedirects: true,
			Assertions:      []checkly.Assertion{{Source: checkly.StatusCode, Comparison: checkly.Equals, Target: "200"}},
		},
		PrivateLocations: &[]string{},
	}
	lifecycle(r, "URL", crud[checkly.URLMonitor]{
		create: func(v checkly.URLMonitor) (*checkly.URLMonitor, error) { return r.sdk.CreateURLMonitor(r.ctx, v) },
		get:    func(id string) (*checkly.URLMonitor, error) { return r.sdk.GetURLMonitor(r.ctx, id) },
		update: func(id string, v checkly.URLMonitor) (*checkly.URLMonitor, error) {
			return r.sdk.UpdateURLMonitor(r.ctx, id, v)
		},
		del:  func(id string) error { return r.sdk.DeleteURLMonitor(r.ctx, id) },
		id:   func(v *checkly.URLMonitor) string { return v.ID },
		list: "/v1/checks?limit=100", listField: "id",
	}, url, func(v *checkly.URLMonitor) { v.Request.URL = "https://www.example.com/health" }, urlServerFields)

	dns := checkly.DNSMonitor{
		Name:                 unique("go-sdk dns"),
		Frequency:            10,
		DegradedResponseTime: 500,
		MaxResponseTime:      1000,
		Activated:            true,
		Locations:            []string{"eu-west-1"},
		Tags:                 []string{"go-sdk"},
		AlertSettings:        &settings,
		Request: checkly.DNSRequest{
			RecordType: "A",
			Query:      "example.com",
			Protocol:   "UDP",
			Assertions: []checkly.Assertion{{Source: checkly.ResponseTime, Comparison: checkly.LessThan, Target: "1000"}},
		},
	}
	lifecycle(r, "DNS", crud[checkly.DNSMonitor]{
		create: func(v checkly.DNSMonitor) (*checkly.DNSMonitor, error) { return r.sdk.CreateDNSMonitor(r.ctx, v) },
		get:    func(id string) (*checkly.DNSMonitor, error) { return r.sdk.GetDNSMonitor(r.ctx, id) },
		update: func(id string, v checkly.DNSMonitor) (*checkly.DNSMonitor, error) {
			return r.sdk.UpdateDNSMonitor(r.ctx, id, v)
		},
		del:  func(id string) error { return r.sdk.DeleteDNSMonitor(r.ctx, id) },
		id:   func(v *checkly.DNSMonitor) string { return v.ID },
		list: "/v1/checks?limit=100", listField: "id",
	}, dns, func(v *checkly.DNSMonitor) { v.Request.RecordType = "AAAA" }, dnsServerFields)

	playwrightSuite(r)

	// Monitor types Vigil does not have.
	r.unsupported("ICMP: CreateICMPMonitor", func() error {
		_, err := r.sdk.CreateICMPMonitor(r.ctx, checkly.ICMPMonitor{Name: "ping", Frequency: 5, Request: checkly.ICMPRequest{Hostname: "example.com"}})
		return err
	})
	r.unsupported("GRPC: CreateGRPCMonitor", func() error {
		_, err := r.sdk.CreateGRPCMonitor(r.ctx, checkly.GRPCMonitor{Name: "grpc", Frequency: 5})
		return err
	})
	r.unsupported("TRACEROUTE: CreateTracerouteMonitor", func() error {
		_, err := r.sdk.CreateTracerouteMonitor(r.ctx, checkly.TracerouteMonitor{Name: "trace", Frequency: 5})
		return err
	})
	r.unsupported("SSL: CreateSSLMonitor", func() error {
		_, err := r.sdk.CreateSSLMonitor(r.ctx, checkly.SSLMonitor{Name: "ssl", Frequency: 5})
		return err
	})
}
