// What Vite provides to the page's modules (for the type check only).
declare module '*.css';
declare module '*?raw' {
  const text: string;
  export default text;
}
interface ImportMeta {
  glob(patterns: string | string[], options?: { query?: string; import?: string; eager?: boolean }): Record<string, any>;
}
