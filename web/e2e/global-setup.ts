import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BASE_URL_ENV, SANDBOX_URL_ENV, bffBin, distDir, repoRoot, stateFile, type ServerState } from './server-env';

const HEALTH_TIMEOUT_MS = 60_000;
const HEALTH_POLL_MS = 250;
const HOST = '127.0.0.1';

/**
 * Starts the real bff (with its embedded sandbox) on free ports, serving the built web app, and
 * waits until GET /healthz on the main port answers 200. Teardown stops it by PID.
 *
 * With E2E_BASE_URL already set, the tests run against that server and nothing is started.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env[BASE_URL_ENV]) {
    console.warn(`[e2e] using the running server at ${process.env[BASE_URL_ENV]}`);
    return;
  }
  if (!existsSync(bffBin)) {
    throw new Error(`[e2e] bff binary not found at ${bffBin}: build it (cargo build -p bff) or set BFF_BIN`);
  }
  if (!existsSync(join(distDir, 'index.html'))) {
    throw new Error(`[e2e] ${distDir}/index.html not found: run \`npm run build\` in web/ first`);
  }

  const [serverPort, adminPort, sandboxPort] = await freePorts(3);
  const tempDir = await mkdtemp(join(tmpdir(), 'storefront-e2e-'));
  const dataDir = join(tempDir, 'sandbox-data');
  await mkdir(dataDir);
  const logFile = join(tempDir, 'bff.log');
  const baseURL = `http://${HOST}:${String(serverPort)}`;

  const log = openSync(logFile, 'a');
  const child = spawn(bffBin, [], {
    cwd: repoRoot,
    env: {
      ...process.env,
      BFF__SERVER__LISTEN: `${HOST}:${String(serverPort)}`,
      BFF__ADMIN__LISTEN: `${HOST}:${String(adminPort)}`,
      BFF__SANDBOX__LISTEN: `${HOST}:${String(sandboxPort)}`,
      BFF__SANDBOX__DATA_DIR: dataDir,
      BFF__WEB__DIST_DIR: distDir,
      BFF__SERVER__PUBLIC_ORIGIN: baseURL,
    },
    stdio: ['ignore', log, log],
  });
  closeSync(log); // the child holds its own descriptor

  const status: { exited: string | null } = { exited: null };
  child.once('exit', (code, signal) => {
    status.exited = `exited with ${signal ?? `code ${String(code)}`}`;
  });
  child.once('error', (err) => {
    status.exited = `could not start: ${err.message}`;
  });
  // the runner must not wait for the server: teardown stops it
  child.unref();

  const state: ServerState = { pid: child.pid ?? -1, baseURL, tempDir, logFile };
  await writeFile(stateFile, JSON.stringify(state));

  try {
    await waitForHealth(`${baseURL}/healthz`, () => status.exited);
  } catch (err) {
    if (status.exited === null) child.kill('SIGKILL');
    await rm(tempDir, { recursive: true, force: true }).catch(() => undefined);
    await rm(stateFile, { force: true });
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(`[e2e] bff did not become healthy: ${message}\n--- bff log (tail) ---\n${tail(logFile)}`, {
      cause: err,
    });
  }

  process.env[BASE_URL_ENV] = baseURL;
  process.env[SANDBOX_URL_ENV] = `http://${HOST}:${String(sandboxPort)}`;
  console.warn(`[e2e] bff pid ${String(child.pid)} at ${baseURL} (log: ${logFile})`);
}

/** Free ports: listen on port 0, read the port, close. All are held open together so they differ. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.unref();
          server.once('error', reject);
          server.listen(0, HOST, () => {
            resolve(server);
          });
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as AddressInfo).port);
  await Promise.all(
    servers.map(
      (server) =>
        new Promise<void>((resolve) => {
          server.close(() => {
            resolve();
          });
        }),
    ),
  );
  return ports;
}

async function waitForHealth(url: string, exited: () => string | null): Promise<void> {
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    const exit = exited();
    if (exit !== null) throw new Error(`the process ${exit}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (response.status === 200) return;
      last = `status ${String(response.status)}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await new Promise((resolve) => setTimeout(resolve, HEALTH_POLL_MS));
  }
  throw new Error(`timed out after ${String(HEALTH_TIMEOUT_MS / 1000)} s waiting for ${url} (last: ${last})`);
}

function tail(file: string, lines = 40): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
