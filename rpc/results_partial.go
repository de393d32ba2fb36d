package rpc

// PartialResultHeader, set on a GraphService GetResult request, asks for
// the result's layout while its graph runs: the chunks computed so far
// carry their worker and URL, the others worker -1 and no URL. The web
// service asks it to write a result into the client's shared-memory file
// chunk by chunk as the chunks are computed.
const PartialResultHeader = "Phobos-Result-Partial"
