import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { bffBin, repoRoot } from '../server-env';

const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

/** A bff (with its embedded sandbox) a test starts itself, on ports it chose. */
export interface BffProcess {
  child: ChildProcess;
  baseURL: string;
  adminURL: string;
  logFile: string;
}

export interface BffOptions {
  ports: { server: number; admin: number; sandbox: number };
  dataDir: string;
  distDir: string;
  logFile: string;
  /** More `BFF__…` settings and secrets. */
  env?: Record<string, string>;
}

/** Free ports: listen on port 0, read the port, close. All are held open together so they differ. */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, HOST, () => {
            resolve(server);
          });
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/** Starts the bff binary and waits until its admin `/readyz` answers 200. */
export async function startBff(options: BffOptions): Promise<BffProcess> {
  const { ports } = options;
  const baseURL = `http://${HOST}:${String(ports.server)}`;
  const adminURL = `http://${HOST}:${String(ports.admin)}`;
  const log = openSync(options.logFile, 'a');
  const child = spawn(bffBin, [], {
    cwd: repoRoot,
    env: {
      ...process.env,
      BFF__SERVER__LISTEN: `${HOST}:${String(ports.server)}`,
      BFF__ADMIN__LISTEN: `${HOST}:${String(ports.admin)}`,
      BFF__SANDBOX__LISTEN: `${HOST}:${String(ports.sandbox)}`,
      BFF__SANDBOX__DATA_DIR: options.dataDir,
      BFF__WEB__DIST_DIR: options.distDir,
      BFF__SERVER__PUBLIC_ORIGIN: baseURL,
      ...options.env,
    },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const status: { exited: string | null } = { exited: null };
  child.once('exit', (code, signal) => {
    status.exited = signal ?? `code ${String(code)}`;
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (status.exited !== null) throw new Error(`bff exited (${status.exited}):\n${tail(options.logFile)}`);
    try {
      const response = await fetch(`${adminURL}/readyz`, { signal: AbortSignal.timeout(2_000) });
      if (response.status === 200) return { child, baseURL, adminURL, logFile: options.logFile };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`bff not ready within ${String(READY_TIMEOUT_MS)} ms:\n${tail(options.logFile)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** SIGTERM by PID, then SIGKILL if it has not exited in time; resolves once it has exited. */
export async function stopBff(bff: BffProcess): Promise<void> {
  const { child } = bff;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
