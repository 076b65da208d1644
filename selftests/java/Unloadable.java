// SPDX-License-Identifier: GPL-2.0
/*
 * Loaded by Workload's "unload" mode through a class loader of its own,
 * so that dropping the loader unloads the class and its compiled code.
 */
public final class Unloadable {
	public static long spin(long seed, int n) {
		long x = seed;

		for (int i = 0; i < n; i++)
			x = x * 2862933555777941757L + 3037000493L ^ (x >>> 17);
		return x;
	}
}
