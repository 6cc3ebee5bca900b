// No configuration needed by agent-session; the build is kept out of the tree's parents.
export default { outputFileTracingRoot: import.meta.dirname }
