// Vite bundles CSS imports; tsc only needs to know they exist.
declare module '*.css';
