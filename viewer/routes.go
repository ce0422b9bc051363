package viewer

import "net/http"

// endpointList is what GET /api/v1/ lists.
var endpointList = []string{"trace", "lanes", "srclocs", "timeline", "statistics", "find", "zone", "zoneat", "callstack",
	"frames", "plot", "locks", "messages", "messagelist", "frameimages", "frameimage", "sources", "source",
	"schedlanes", "sched",
	"memory", "memlist", "memtree", "flame", "lockstats", "sourcestats"}

func (s *Server) moreRoutes(api func(string, func(http.ResponseWriter, *http.Request) error)) {
	api("statistics", s.apiStatistics)
	api("find", s.apiFind)
	api("zone", s.apiZone)
	api("zoneat", s.apiZoneAt)
	api("callstack", s.apiCallStack)
	api("frames", s.apiFrames)
	api("plot", s.apiPlot)
	api("locks", s.apiLocks)
	api("messages", s.apiMessages)
	api("messagelist", s.apiMessageList)
	api("frameimages", s.apiFrameImages)
	api("frameimage", s.apiFrameImage)
	api("sources", s.apiSources)
	api("source", s.apiSource)
	api("schedlanes", s.apiSchedLanes) // ctxswitch.go
	api("sched", s.apiSched)           // ctxswitch.go
	s.deepRoutes(api)
}
