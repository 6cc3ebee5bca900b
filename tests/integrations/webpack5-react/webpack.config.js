// An ordinary webpack 5 React + TypeScript setup (ts-loader for .tsx). Nothing in it is for
// agent-session: top-level await and the `new URL('….wasm', import.meta.url)` asset are
// webpack 5 defaults.
module.exports = {
  entry: './src/main.tsx',
  resolve: { extensions: ['.tsx', '.ts', '.js'] },
  module: { rules: [{ test: /\.tsx?$/, loader: 'ts-loader', options: { transpileOnly: true } }] },
}
