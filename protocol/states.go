package protocol

// StateNames are the operand states' names in the scheduler's order
// (scheduler.State indexes them), as graph progress and the dashboard show
// them: the web service reads them here rather than linking the scheduler.
var StateNames = [...]string{"UNSCHEDULED", "READY", "RUNNING", "FINISHED", "FREED", "FATAL", "CANCELLING", "CANCELLED"}

// MaxOpInfos bounds the ops one request for a graph's ops describes.
const MaxOpInfos = 200
