package viewer

import (
	"net"
	"net/http"
	"strings"
)

// GuardHost refuses requests whose Host header names anything but an IP
// address or localhost. A server on loopback is still reachable from web
// pages the user visits, through DNS rebinding: evil.example resolves to
// 127.0.0.1 and its scripts then read the API as a same-origin site. Such
// a request carries Host: evil.example, so refusing names other than
// localhost closes that door while every way of typing the printed URL
// keeps working. Use it when listening on loopback.
func GuardHost(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r.Host) {
			http.Error(w, "gotracy view answers only requests to localhost or an IP address (Host "+r.Host+" refused)", http.StatusMisdirectedRequest)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func hostAllowed(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	return net.ParseIP(host) != nil
}
