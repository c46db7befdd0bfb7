import { readFile, rm } from 'node:fs/promises';
import { stateFile, type ServerState } from './server-env';

const STOP_TIMEOUT_MS = 10_000;

/** Stops the bff started by global setup, by PID (SIGTERM, then SIGKILL), and removes its temp dir. */
export default async function globalTeardown(): Promise<void> {
  let state: ServerState;
  try {
    state = JSON.parse(await readFile(stateFile, 'utf8')) as ServerState;
  } catch {
    return; // nothing was started (or E2E_BASE_URL pointed at an external server)
  }

  if (state.pid > 0 && isAlive(state.pid)) {
    process.kill(state.pid, 'SIGTERM');
    const deadline = Date.now() + STOP_TIMEOUT_MS;
    while (isAlive(state.pid) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (isAlive(state.pid)) {
      console.warn(`[e2e] bff pid ${String(state.pid)} ignored SIGTERM; sending SIGKILL`);
      process.kill(state.pid, 'SIGKILL');
    }
  }

  if (process.env.E2E_KEEP_TEMP) {
    console.warn(`[e2e] kept ${state.tempDir} (bff log: ${state.logFile})`);
  } else {
    await rm(state.tempDir, { recursive: true, force: true });
  }
  await rm(stateFile, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
