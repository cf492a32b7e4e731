# collectd area
