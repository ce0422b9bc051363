package viewer

import "net/http"

// endpointList is what GET /api/v1/ lists.
var endpointList = []string{"trace", "lanes", "srclocs", "timeline"}

type statsCache struct{}
type lockRow struct{}
type spanBuf struct{}

func (s *Server) moreRoutes(api func(string, func(http.ResponseWriter, *http.Request) error)) {}
