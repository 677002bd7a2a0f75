/* hash.cl — the generic half of a counting sort on the device, used by the
 * self-collision spatial hashes (selfcol.cl) and by the contact → corner
 * regrouping of the vertex-triangle pass:
 *
 *   count (integer atomic_inc per bucket; its return value is the entry's
 *          rank in the bucket, kept; selfcol.cl)
 *     ▸ exclusive prefix sum of the counts (hash_scan_block + hash_scan_add)
 *     ▸ scatter to start[bucket] + rank (selfcol.cl)
 *     ▸ hash_sort_buckets: each bucket's values in increasing order.
 *
 * Why the last step: the rank an atomic hands out depends on which work
 * item got there first, so the order inside a bucket changes from run
 * to run. The passes sum corrections in bucket order, and float sums depend
 * on order, so without sorting the same scene would not give the same bits
 * twice. Buckets hold a handful of entries (cell size ≈ thickness), so an
 * insertion sort per bucket is cheap; an overfull bucket only gets the
 * front its readers can reach sorted (hash_sort_buckets). The CPU reference
 * (selfcol_cpu.c) scatters sequentially and so gets the same sorted order
 * directly.
 *
 * The scan is the work-efficient two-level scheme of Blelloch (1990) /
 * Harris et al. (GPU Gems 3, ch. 39): each work-group scans 2·L counts in
 * local memory (Hillis–Steele over the L pair sums) and writes its block
 * total; the block totals are scanned the same way (recursively, by the host
 * wrapper, until one block remains) and added back by hash_scan_add.
 *
 * That is the scan of the GPU kernel form (docs/solver.md "Two kernel
 * forms"): no serial section, one launch per level. The vector form (what
 * CPU devices run) picks the chunked scan instead (hash_scan_chunks ▸
 * hash_scan_totals ▸ hash_scan_chunks_add): each work item runs through a
 * chunk of consecutive counts in order, and one work item through the few
 * chunk totals. Why: a CPU device runs a work-group
 * as one loop per stretch between barriers, so the log2(L) barriers of the
 * Hillis–Steele scan cost it more than the sums (PoCL: the block scan was a
 * tenth of the main scene's frame), and a CPU core sums a run in order at
 * memory speed. Both give the same exact integer prefix sums.
 *
 * The buckets' sort takes a gate (its last argument): it does nothing when
 * gate[0].w is 0. The kept contact lists' corner lists are not sorted when
 * kl_fit (selfcol.cl) finds them over their buffer, a decision made on the
 * device; every other sort passes a gate that is always open. */

/* In-place exclusive scan of data[0, n) in blocks of 2·L elements (L = the
 * local size); block b's total goes to block_sums[b]. tmp: L uints. */
__kernel void hash_scan_block(__global uint *data, __global uint *block_sums, const uint n,
                              __local uint *tmp) {
  const uint lid = get_local_id(0);
  const uint L = get_local_size(0);
  const uint grp = get_group_id(0);
  const uint i0 = (grp * L + lid) * 2u;
  const uint a = i0 < n ? data[i0] : 0u;
  const uint b = i0 + 1u < n ? data[i0 + 1u] : 0u;
  const uint s = a + b;
  tmp[lid] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  /* Hillis–Steele inclusive scan of the L pair sums. */
  for (uint off = 1u; off < L; off <<= 1) {
    uint add = lid >= off ? tmp[lid - off] : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    tmp[lid] += add;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const uint incl = tmp[lid];
  const uint excl = incl - s;
  if (i0 < n) data[i0] = excl;
  if (i0 + 1u < n) data[i0 + 1u] = excl + a;
  if (lid == L - 1u) block_sums[grp] = incl;
}

/* Chunked form (CPU devices): chunk c = data[c·chunk, min((c+1)·chunk, n))
 * scanned in place, exclusive, its total to totals[c]. */
__kernel void hash_scan_chunks(__global uint *data, __global uint *totals, const uint n,
                               const uint chunk) {
  const uint c = get_global_id(0);
  const uint lo = c * chunk;
  if (lo >= n) return;
  const uint hi = min(lo + chunk, n);
  uint run = 0u;
  for (uint i = lo; i < hi; i++) {
    const uint v = data[i];
    data[i] = run;
    run += v;
  }
  totals[c] = run;
}

/* One work item: the m chunk totals scanned in place (exclusive). */
__kernel void hash_scan_totals(__global uint *totals, const uint m) {
  if (get_global_id(0) != 0) return;
  uint run = 0u;
  for (uint i = 0; i < m; i++) {
    const uint v = totals[i];
    totals[i] = run;
    run += v;
  }
}

/* Adds each chunk's scanned total to its elements. */
__kernel void hash_scan_chunks_add(__global uint *data, __global const uint *totals,
                                   const uint n, const uint chunk) {
  const uint c = get_global_id(0);
  const uint lo = c * chunk;
  if (lo >= n) return;
  const uint off = totals[c];
  if (off == 0u) return;
  const uint hi = min(lo + chunk, n);
  for (uint i = lo; i < hi; i++) data[i] += off;
}

/* data[i] += scanned block total of its block (blocks of 2·L elements, L the
 * local size this kernel runs with — the same as hash_scan_block's). */
__kernel void hash_scan_add(__global uint *data, __global const uint *block_offsets,
                            const uint n) {
  const uint i = get_global_id(0);
  if (i >= n) return;
  const uint blk = i / (2u * (uint)get_local_size(0));
  if (blk > 0u) data[i] += block_offsets[blk];
}

/* Moves vals[lo + i] down the max-heap vals[lo, lo + m) (root at lo). */
inline void hash_sift_down(__global uint *vals, const uint lo, uint i, const uint m) {
  const uint v = vals[lo + i];
  for (;;) {
    uint c = 2u * i + 1u;
    if (c >= m) break;
    if (c + 1u < m && vals[lo + c + 1u] > vals[lo + c]) c++;
    if (vals[lo + c] <= v) break;
    vals[lo + i] = vals[lo + c];
    i = c;
  }
  vals[lo + i] = v;
}

/* A bucket, vals[lo, hi), in increasing order as far as anyone reads it
 * (hash_sort_buckets below; hash_sort_boxes in selfcol.cl for the triangle
 * hashes). The readers (selfcol.cl) take at most `cap` entries from
 * the start of a bucket (the bounded work of issue 13), so a bucket of m <=
 * cap entries is insertion-sorted whole (a handful in a sane scene), and a
 * larger one (a cloth crushed into a few cells) only gets its cap smallest
 * values, in order, at its front: a max-heap of the first cap entries takes
 * every later entry smaller than its top (O(m log cap) instead of the O(m^2)
 * of insertion sort on thousands of entries), then is heap-sorted in place.
 * The front is the same set in the same order whatever order the atomics
 * gave, so it equals the CPU reference's (sequential, fully sorted) front;
 * the rest of the bucket is left in no particular order and never read. */
inline void hash_sort_range(__global uint *vals, const uint lo, const uint hi, const uint cap) {
  if (hi - lo <= cap) {
    for (uint i = lo + 1u; i < hi; i++) {
      const uint v = vals[i];
      uint j = i;
      while (j > lo && vals[j - 1u] > v) {
        vals[j] = vals[j - 1u];
        j--;
      }
      vals[j] = v;
    }
    return;
  }
  const uint m = cap;
  for (uint i = m / 2u; i-- > 0u;) hash_sift_down(vals, lo, i, m);
  for (uint i = lo + m; i < hi; i++) {
    const uint v = vals[i];
    if (v < vals[lo]) {
      vals[i] = vals[lo];
      vals[lo] = v;
      hash_sift_down(vals, lo, 0u, m);
    }
  }
  for (uint end = m - 1u; end > 0u; end--) {
    const uint top = vals[lo];
    vals[lo] = vals[lo + end];
    vals[lo + end] = top;
    hash_sift_down(vals, lo, 0u, end);
  }
}

__kernel void hash_sort_buckets(__global const uint *start, __global uint *vals,
                                const uint n_buckets, const uint cap,
                                __global const float4 *gate) {
  if (gate[0].w == 0.0f) return; /* the whole launch: uniform */
  const uint b = get_global_id(0);
  if (b >= n_buckets) return;
  hash_sort_range(vals, start[b], start[b + 1u], cap);
}
