# firstrun area
