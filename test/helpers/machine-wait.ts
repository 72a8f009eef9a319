// How long a test waits on the machine rather than on the code: a process that starts and listens, a
// restart, a retry schedule run by another process. On a busy 2-core machine (a build beside the
// tests, CI's neighbours) these take many times what they take alone; a wait sized for that fails
// only when the thing never happens.

/** The longest such wait, in milliseconds. */
export const MACHINE_WAIT_MS = 60_000;

/**
 * The time limit of a hook that compiles a snippet and waits for its process (each up to
 * {@link MACHINE_WAIT_MS}): longer than its waits, so that a wait fails with its own message and the
 * hook's cleanup still runs, never the hook's timeout first with a process left behind.
 */
export const SNIPPET_HOOK_MS = 2 * MACHINE_WAIT_MS + 30_000;
