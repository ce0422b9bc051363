package viewer

import "net/http"

// deepRoutes registers the memory, flame-graph, lock-statistics and
// source-statistics endpoints (docs/viewer-api.md "Deep views").
func (s *Server) deepRoutes(api func(string, func(http.ResponseWriter, *http.Request) error)) {
	api("memory", s.apiMemory)
	api("memlist", s.apiMemList)
	api("memtree", s.apiMemTree)
	api("flame", s.apiFlame)
	api("lockstats", s.apiLockStats)
	api("sourcestats", s.apiSourceStats)
}
