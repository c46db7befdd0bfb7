import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { distDir, webDir } from '../server-env';
import { freePorts, startBff, stopBff, type BffProcess } from './bff-process';

/** The console's build (`npm run build:console`), which every replica serves. */
export const consoleDir = join(webDir, 'dist-console');

const REDIS_READY_TIMEOUT_MS = 10_000;
/** Heartbeats every second, so the fleet of three is seen at once (the default is 5 s). */
const HEARTBEAT = '1s';

/** Redis on a free port and three bff replicas (each with its embedded sandbox) sharing it. */
export interface ConsoleFleet {
  redis: ChildProcess;
  replicas: BffProcess[];
  work: string;
}

/**
 * Starts a real `redis-server` (no persistence) on a free port, then three replicas named
 * `bff-a`, `bff-b`, `bff-c` (`POD_NAME`) with one key prefix and `token` as their admin token.
 */
export async function startConsoleFleet(token: string, env: Record<string, string> = {}): Promise<ConsoleFleet> {
  const work = await mkdtemp(join(tmpdir(), 'console-e2e-'));
  const [redisPort = 0] = await freePorts(1);
  const redis = spawn(
    'redis-server',
    ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', work],
    { stdio: 'ignore' },
  );
  const fleet: ConsoleFleet = { redis, replicas: [], work };
  try {
    await redisAnswers(redisPort);
    const prefix = `console-e2e-${String(process.pid)}-${String(Date.now())}:`;
    const ports = await freePorts(9);
    fleet.replicas = await Promise.all(
      ['a', 'b', 'c'].map(async (name, index) => {
        const dataDir = join(work, `data-${name}`);
        await mkdir(dataDir);
        const [server = 0, admin = 0, sandbox = 0] = ports.slice(index * 3, index * 3 + 3);
        return startBff({
          ports: { server, admin, sandbox },
          dataDir,
          distDir,
          logFile: join(work, `bff-${name}.log`),
          env: {
            BFF_ADMIN_TOKEN: token,
            POD_NAME: `bff-${name}`,
            BFF__REDIS__URL: `redis://127.0.0.1:${String(redisPort)}`,
            BFF__REDIS__KEY_PREFIX: prefix,
            BFF__FLEET__HEARTBEAT_INTERVAL: HEARTBEAT,
            BFF__WEB__CONSOLE_DIR: consoleDir,
            ...env,
          },
        });
      }),
    );
  } catch (error) {
    await stopConsoleFleet(fleet);
    throw error;
  }
  return fleet;
}

/** Stops every replica, then Redis, each by its PID, and removes the work directory. */
export async function stopConsoleFleet(fleet: ConsoleFleet): Promise<void> {
  await Promise.all(fleet.replicas.map((replica) => stopBff(replica)));
  if (fleet.redis.exitCode === null && fleet.redis.signalCode === null) {
    const exited = new Promise<void>((resolve) => fleet.redis.once('exit', () => resolve()));
    fleet.redis.kill('SIGTERM');
    const timer = setTimeout(() => fleet.redis.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
  if (process.env.E2E_KEEP_TEMP) console.warn(`[console e2e] kept ${fleet.work}`);
  else await rm(fleet.work, { recursive: true, force: true });
}

/** Waits until Redis answers PING with PONG on `port`. */
async function redisAnswers(port: number): Promise<void> {
  const deadline = Date.now() + REDIS_READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (await ping(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`redis-server did not answer on port ${String(port)} within ${String(REDIS_READY_TIMEOUT_MS)} ms`);
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}
