import { render } from 'preact';
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { App } from './app.tsx';
import { applyTheme } from './theme.ts';

applyTheme();
render(<App />, document.getElementById('app')!);
