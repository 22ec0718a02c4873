/**
 * Clustering of unit vectors for the summary tree: k-means with a deterministic k-means++ start
 * (a seeded generator, so the same vectors give the same clusters and unchanged clusters keep
 * their summaries across rebuilds).
 */

/** A small deterministic generator (mulberry32). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function distance(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return 1 - dot;
}

function normalized(v: Float32Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] = v[i]! / norm;
  return v;
}

/** The unit mean of vectors (their centroid on the sphere). */
export function meanVector(vectors: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(vectors[0]?.length ?? 0);
  for (const v of vectors) for (let i = 0; i < v.length; i++) out[i] = out[i]! + v[i]!;
  return normalized(out);
}

/**
 * Group unit vectors into clusters of about `targetSize` members (cosine k-means, at most
 * `iterations` rounds). Returns each vector's cluster index; clusters are numbered 0..k-1 and
 * none is empty. One vector, or `targetSize` ≥ the count, gives a single cluster.
 */
export function clusterVectors(vectors: readonly Float32Array[], targetSize: number, options: { seed?: number; iterations?: number } = {}): number[] {
  const n = vectors.length;
  const k = Math.max(1, Math.ceil(n / Math.max(1, targetSize)));
  if (k === 1) return vectors.map(() => 0);
  const random = seeded(options.seed ?? 17);
  // k-means++: each next centre drawn with probability proportional to its distance from the nearest chosen one.
  const centres: Float32Array[] = [Float32Array.from(vectors[Math.floor(random() * n)]!)];
  const nearest = vectors.map((v) => distance(v, centres[0]!));
  while (centres.length < k) {
    const total = nearest.reduce((s, d) => s + Math.max(d, 0), 0);
    let pick = random() * total;
    let index = 0;
    for (; index < n - 1; index++) {
      pick -= Math.max(nearest[index]!, 0);
      if (pick <= 0) break;
    }
    centres.push(Float32Array.from(vectors[index]!));
    for (let i = 0; i < n; i++) nearest[i] = Math.min(nearest[i]!, distance(vectors[i]!, centres.at(-1)!));
  }
  let assignment = new Array<number>(n).fill(0);
  for (let round = 0; round < (options.iterations ?? 12); round++) {
    const next = vectors.map((v) => {
      let best = 0;
      let bestDistance = Infinity;
      centres.forEach((c, j) => {
        const d = distance(v, c);
        if (d < bestDistance) [best, bestDistance] = [j, d];
      });
      return best;
    });
    const changed = next.some((c, i) => c !== assignment[i]);
    assignment = next;
    for (let j = 0; j < k; j++) {
      const members = vectors.filter((_, i) => assignment[i] === j);
      if (members.length) centres[j] = meanVector(members);
    }
    if (!changed && round > 0) break;
  }
  // Renumber the clusters that have members, in order of first appearance (no empty cluster).
  const renumber = new Map<number, number>();
  return assignment.map((c) => {
    if (!renumber.has(c)) renumber.set(c, renumber.size);
    return renumber.get(c)!;
  });
}
