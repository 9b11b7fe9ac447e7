// hami-observe console: draws the charts whose data the server put in data-chart attributes, and
// copies resources snippets. Loaded as a file (the Content-Security-Policy allows no inline script).
(function () {
  'use strict';

  var COLOURS = {
    total: '#8c96a8', allocated: '#2f6fbe', used: '#f28e2b', peak: '#d9534f',
    recommended: '#2e7d32', temperature: '#d9534f', power: '#6a51a3', active: '#59a14f', effective: '#1b5e20'
  };

  function bytes(value) {
    var units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
    var size = Math.abs(value);
    var unit = 0;
    while (size >= 1024 && unit < units.length - 1) {
      size /= 1024;
      unit++;
    }
    return (value < 0 ? '-' : '') + size.toFixed(size < 10 && unit > 0 ? 1 : 0) + ' ' + units[unit];
  }

  function format(unit, value) {
    if (value === null || value === undefined || isNaN(value)) {
      return 'no data';
    }
    switch (unit) {
      case 'bytes': return bytes(value);
      case 'percent': return value.toFixed(Math.abs(value) < 10 ? 1 : 0) + ' %';
      case 'celsius': return Math.round(value) + ' °C';
      case 'watts': return Math.round(value) + ' W';
      case 'cards': return value.toFixed(Math.abs(value) < 10 ? 2 : 1) + ' cards';
      default: return String(value);
    }
  }

  function draw(element) {
    var spec = JSON.parse(element.getAttribute('data-chart'));
    var data = [spec.times];
    var series = [{}];
    spec.series.forEach(function (line) {
      data.push(line.values);
      series.push({
        label: line.label,
        stroke: COLOURS[line.style] || '#555',
        width: line.flat ? 1.5 : 2,
        dash: line.flat ? [6, 4] : undefined,
        spanGaps: false,
        // With no cursor on the chart the legend has no point to show: a dash, not "no data".
        value: function (plot, value, seriesIndex, index) {
          return index === null || index === undefined ? '–' : format(spec.unit, value);
        }
      });
    });
    var height = 220;
    var options = {
      width: Math.max(element.clientWidth, 300),
      height: height,
      series: series,
      // Amounts start at zero: a line near the top means much, not merely more than the least.
      scales: { x: { time: true }, y: { range: function (plot, min, max) { return [0, Math.max(max, 1) * 1.08]; } } },
      axes: [{}, { size: 80, values: function (plot, ticks) { return ticks.map(function (tick) { return format(spec.unit, tick); }); } }]
    };
    var plot = new uPlot(options, data, element);
    element.setAttribute('data-drawn', String(spec.series.length));
    if (window.ResizeObserver) {
      new ResizeObserver(function () {
        var width = Math.max(element.clientWidth, 300);
        if (width !== plot.width) {
          plot.setSize({ width: width, height: height });
        }
      }).observe(element);
    }
  }

  function copy(button) {
    var target = document.getElementById(button.getAttribute('data-copy'));
    var selectIt = function () {
      var range = document.createRange();
      range.selectNodeContents(target);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      button.textContent = 'Selected: press Ctrl-C';
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(target.textContent).then(function () { button.textContent = 'Copied'; }, selectIt);
    } else {
      selectIt();
    }
  }

  document.querySelectorAll('[data-chart]').forEach(draw);
  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    button.addEventListener('click', function () { copy(button); });
  });
})();
