// SPDX-License-Identifier: GPL-2.0
/*
 * A Java workload for the agent's tests and benchmark: an allocation hot
 * spot (allocHotSpot: most of the objects), a little allocation elsewhere
 * (allocElsewhere), a method the JIT compiles early (jitHot: most of the CPU
 * time), and a forced GC every few rounds.
 *
 *   java Workload [ROUNDS] [GC_EVERY] [wait|cpu]
 *
 * Prints "ready PID" (and with "wait", blocks until a line arrives on
 * standard input, so an agent can be attached), then runs and prints
 * "ops_per_s N" (allocations per second over the second half of the rounds,
 * once the JIT has settled), with "cpu" "ops_per_cpu_s N" (the same per
 * second of the main thread's CPU time, which the agent's sampling is
 * part of and other programs on the machine are not), and "done", and
 * leaves through System.exit.
 * ROUNDS 0 runs until a line arrives on standard input or it closes,
 * printing "round N" every 10 rounds.
 *
 *   java Workload clone N
 *
 * clones an int[4] N times in cloneHotSpot (with -Xint each clone is one
 * VMObjectAlloc event), prints "done" and leaves through System.exit.
 *
 *   java Workload unload
 *
 * loads Unloadable through a class loader of its own, runs its method
 * until the JIT has compiled it, prints "compiled", waits for a line on
 * standard input, drops the loader, collects until the class is gone,
 * prints "unloaded" and waits for standard input to close.
 */
import java.io.BufferedReader;
import java.io.InputStreamReader;

public final class Workload {
	static volatile Object sink;
	static volatile long result;
	static volatile boolean stop;

	static final class Point {
		final long x, y;

		Point(long x, long y) {
			this.x = x;
			this.y = y;
		}
	}

	static void allocHotSpot(int n) {
		for (int i = 0; i < n; i++)
			sink = new Point(i, i + 1);
	}

	static void allocElsewhere(int n) {
		for (int i = 0; i < n; i++)
			sink = new int[4];
	}

	/* allocations the VM makes itself (Object.clone): what VMObjectAlloc reports on OpenJDK */
	static void cloneHotSpot(int n) {
		int[] a = new int[4];

		for (int i = 0; i < n; i++)
			sink = a.clone();
	}

	static long jitHot(long seed, int n) {
		long x = seed;

		for (int i = 0; i < n; i++)
			x = x * 6364136223846793005L + 1442695040888963407L ^ (x >>> 29);
		return x;
	}

	static void unload() throws Exception {
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
		java.net.URL here = Workload.class.getProtectionDomain().getCodeSource().getLocation();
		java.net.URLClassLoader loader = new java.net.URLClassLoader(new java.net.URL[] { here },
				ClassLoader.getPlatformClassLoader());
		java.lang.ref.WeakReference<Class<?>> cls =
			new java.lang.ref.WeakReference<>(loader.loadClass("Unloadable"));
		java.lang.reflect.Method spin = cls.get().getMethod("spin", long.class, int.class);

		for (int i = 0; i < 20000; i++)
			result += (Long)spin.invoke(null, (long)i, 2000);
		System.out.println("compiled");
		System.out.flush();
		in.readLine();
		spin = null;
		loader.close();
		loader = null;
		for (int i = 0; i < 50 && cls.get() != null; i++) {
			System.gc();
			Thread.sleep(20);
		}
		/* a few more collections: the code goes after the class */
		for (int i = 0; i < 5; i++) {
			System.gc();
			Thread.sleep(20);
		}
		System.out.println(cls.get() == null ? "unloaded" : "still loaded");
		System.out.flush();
		while (in.readLine() != null)
			;
	}

	static long cpuTime(java.lang.management.ThreadMXBean cpu) {
		return cpu != null ? cpu.getCurrentThreadCpuTime() : 0;
	}

	public static void main(String[] args) throws Exception {
		if (args.length > 0 && args[0].equals("unload")) {
			unload();
			return;
		}
		if (args.length > 1 && args[0].equals("clone")) {
			cloneHotSpot(Integer.parseInt(args[1]));
			System.out.println("done");
			System.exit(0);
		}
		int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
		int gcEvery = args.length > 1 ? Integer.parseInt(args[1]) : 50;
		boolean wait = args.length > 2 && args[2].equals("wait");
		/* java.management needs the JDK's configuration in /etc: only when asked */
		java.lang.management.ThreadMXBean cpu = args.length > 2 && args[2].equals("cpu") ?
			java.lang.management.ManagementFactory.getThreadMXBean() : null;
		long ops = 0;

		System.out.println("ready " + ProcessHandle.current().pid());
		System.out.flush();
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
		if (wait)
			in.readLine();
		if (rounds == 0) {
			Thread t = new Thread(() -> {
				try {
					in.readLine();
				} catch (Exception e) {
				}
				stop = true;
			});
			t.setDaemon(true);
			t.start();
		}
		long t0 = System.nanoTime(), tHalf = t0, opsHalf = 0;
		long c0 = cpuTime(cpu), cHalf = c0;
		for (int r = 1; rounds == 0 ? !stop : r <= rounds; r++) {
			allocHotSpot(100000);
			allocElsewhere(5000);
			result += jitHot(r, 200000);
			ops += 105000;
			if (r == rounds / 2) {
				tHalf = System.nanoTime();
				cHalf = cpuTime(cpu);
				opsHalf = ops;
			}
			if (gcEvery > 0 && r % gcEvery == 0)
				System.gc();
			if (rounds == 0 && r % 10 == 0) {
				System.out.println("round " + r);
				System.out.flush();
			}
		}
		long t1 = System.nanoTime(), c1 = cpuTime(cpu);
		if (tHalf == t0 || t1 == tHalf || c1 == cHalf) {
			tHalf = t0;
			cHalf = c0;
			opsHalf = 0;
		}
		System.out.println("ops_per_s " + (long)((ops - opsHalf) / ((t1 - tHalf) / 1e9)));
		if (cpu != null)
			System.out.println("ops_per_cpu_s " + (long)((ops - opsHalf) / ((c1 - cHalf) / 1e9)));
		System.out.println("done");
		System.out.flush();
		System.exit(0);
	}
}
