// node:sqlite (the example's durable payments, on Node 22.13 and later) prints an ExperimentalWarning
// when it is first loaded, at every start of the example: imported first by server.js, this keeps
// that one line out of the example's output. Every other warning still prints. (passport-kudos itself
// prints nothing: the warning is Node's own.)
const emit = process.emitWarning;
process.emitWarning = function quietSqlite(warning, ...rest) {
  const text = typeof warning === 'string' ? warning : warning?.message;
  if (/SQLite is an experimental feature/.test(String(text))) return;
  return emit.call(process, warning, ...rest);
};
