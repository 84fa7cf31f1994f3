// PostGraphile 5 (grafast) calls Promise.withResolvers, which Node gained in 22. Preloaded into
// the peer server on Node 20 with `node --require ./bench/polyfill.cjs` (or NODE_OPTIONS).
if (typeof Promise.withResolvers !== 'function') {
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers() {
      let resolve;
      let reject;
      const promise = new this((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}
