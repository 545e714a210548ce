// Preloaded (NODE_OPTIONS=--import) into a replica whose wall clock runs two hours ahead of the
// others' (a virtual machine whose clock drifted): leases must not trust it (CONTRACT §12).
const realNow = Date.now.bind(Date);
Date.now = () => realNow() + 2 * 3_600_000;
